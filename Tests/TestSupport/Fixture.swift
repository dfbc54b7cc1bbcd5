import EntitlementPorts
import Entitlements

/// Test facts shared by the store and contract suites: plausible App Store values, Sendable so
/// concurrent child tasks can build them. Suites add their own in extensions.
public enum Fixture {
    public static let purchasedAt: Int64 = 1_700_000_000_000
    public static let expiresAt: Int64 = purchasedAt + 2_592_000_000

    /// A 30-day auto-renewable subscription transaction in `chain`.
    public static func subscription(
        _ transactionID: String, chain: String, product: String = "com.example.monthly",
        purchasedAt: Int64 = Fixture.purchasedAt, cancelledAt: Int64? = nil
    ) -> Transaction {
        Transaction(
            transactionID: transactionID, originalTransactionID: chain, productID: product,
            purchaseDateMs: purchasedAt, expiresDateMs: purchasedAt + 2_592_000_000,
            cancellationDateMs: cancelledAt, subscriptionGroupIdentifier: "group",
            webOrderLineItemID: "wo-\(transactionID)", inAppOwnershipType: "PURCHASED",
            environment: .sandbox, declaredProductType: .autoRenewable)
    }

    /// What a verified receipt for `userID` writes.
    public static func receipt(
        _ userID: String, _ transactions: [Transaction], renewals: [RenewalInfo] = [], sourceID: String? = nil
    ) -> FactsWrite {
        FactsWrite(userID: userID, transactions: transactions, renewalInfos: renewals,
                   source: .receipt, sourceID: sourceID)
    }

    /// A V2 notification about chains, signed a second after ``purchasedAt`` unless told.
    public static func notification(
        _ uuid: String, signedAt: Int64 = Fixture.purchasedAt + 1_000, transactions: [Transaction] = [],
        renewals: [RenewalInfo] = [], events: [HistoryEvent] = [], reversedRefunds: [String] = []
    ) -> NotificationWrite {
        NotificationWrite(source: .notificationV2, sourceID: uuid, signedDateMs: signedAt,
                          transactions: transactions, renewalInfos: renewals, events: events,
                          reversedRefunds: reversedRefunds)
    }
}
