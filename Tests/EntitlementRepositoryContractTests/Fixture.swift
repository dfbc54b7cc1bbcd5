import EntitlementPorts
import Entitlements

/// Test facts: plausible App Store values, Sendable so concurrent child tasks can build them.
enum Fixture {
    static func subscription(
        _ transactionID: String, chain: String, product: String = "com.example.monthly",
        purchasedAt: Int64 = 1_700_000_000_000, cancelledAt: Int64? = nil
    ) -> Transaction {
        Transaction(
            transactionID: transactionID, originalTransactionID: chain, productID: product,
            purchaseDateMs: purchasedAt, expiresDateMs: purchasedAt + 2_592_000_000,
            cancellationDateMs: cancelledAt, subscriptionGroupIdentifier: "group",
            webOrderLineItemID: "wo-\(transactionID)", inAppOwnershipType: "PURCHASED",
            environment: .sandbox, declaredProductType: .autoRenewable)
    }

    static func receipt(_ userID: String, _ transactions: [Transaction], renewals: [RenewalInfo] = [],
                        sourceID: String? = nil) -> FactsWrite {
        FactsWrite(userID: userID, transactions: transactions, renewalInfos: renewals,
                   source: .receipt, sourceID: sourceID)
    }
}
