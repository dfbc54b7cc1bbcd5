import Entitlements

/// Something that happened in the simulated App Store, with everything a notification about
/// it needs, captured at the moment it happened.
///
/// Capturing (rather than re-reading state when the notification is built) is what makes a
/// late, shuffled or duplicated delivery carry the facts of its own moment, as Apple's do.
public struct SimulatedEvent: Sendable, Hashable {
    /// The V2 `notificationType` and `subtype`.
    public var notificationType: String
    public var subtype: String?
    /// The V1 `notification_type`; nil where V1 has no notification for the event (one-time
    /// purchases, expiry, refund reversal).
    public var v1NotificationType: String?
    /// Apple's idempotency key; a duplicate delivery repeats it.
    public var notificationUUID: String
    /// When it happened in simulated time: the notification's `signedDate`.
    public var signedDateMs: Int64
    public var environment: Environment
    /// The transaction the notification is about (`signedTransactionInfo`).
    public var transaction: Transaction
    /// The chain's renewal info at that moment (`signedRenewalInfo`); auto-renewables only.
    public var renewalInfo: RenewalInfo?
    /// The chain's current product (the renewal payload's `productId`).
    public var currentProductID: String?
    /// V2 `data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// V1's `unified_receipt`: the customer's receipt infos and renewal infos at that moment.
    public var receiptTransactions: [Transaction]
    public var receiptRenewalInfos: [RenewalInfo]
    public var latestReceipt: String
    /// V1's top-level `cancellation_date_ms` (a refund).
    public var cancellationDateMs: Int64?
    /// CONSUMPTION_REQUEST's `consumptionRequestReason`.
    public var consumptionRequestReason: String? = nil
}
