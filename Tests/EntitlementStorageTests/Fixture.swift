import EntitlementPorts
import Entitlements
import SQLiteStore
import StorageCore

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

    /// A V2 notification about chains (the contract suite has the richer notification fixtures).
    static func notification(
        _ uuid: String, signedAt: Int64 = 1_700_000_001_000, transactions: [Transaction] = [],
        renewals: [RenewalInfo] = [], events: [HistoryEvent] = [], reversedRefunds: [String] = []
    ) -> NotificationWrite {
        NotificationWrite(source: .notificationV2, sourceID: uuid, signedDateMs: signedAt,
                          transactions: transactions, renewalInfos: renewals, events: events,
                          reversedRefunds: reversedRefunds)
    }
}
