import Entitlements

/// One App Store Server Notification (V1 or V2) as facts: it is about chains, not users.
///
/// Apple addresses notifications by original_transaction_id, delivers them in any order and
/// sometimes twice. ``EntitlementRepository/apply(_:)`` stores the facts for whichever user owns
/// each chain, or keeps them for the chain until a receipt binds it to a user.
public struct NotificationWrite: Sendable {
    /// ``HistoryEvent/Source/notificationV1`` or ``HistoryEvent/Source/notificationV2``.
    public var source: HistoryEvent.Source
    /// The idempotency key: V2 notificationUUID, or "v1:<sha256 hex of body>".
    public var sourceID: String
    /// V2 signedDate; for V1 (unsigned) when it was received. Dates a refund reversal.
    public var signedDateMs: Int64
    public var transactions: [Transaction]
    public var renewalInfos: [RenewalInfo]
    /// Notification-driven events (billing retry, grace period, auto-renew changes, expired,
    /// revoke, product change, or `.other` with appleNotificationType); each names its chain in
    /// ``HistoryEvent/originalTransactionID``, which decides whose history it joins.
    public var events: [HistoryEvent]
    /// REFUND_REVERSED: transaction ids whose refund Apple reversed, as of ``signedDateMs``.
    public var reversedRefunds: [String]
    /// The notification's Apple type and subject: the events derived from its transactions
    /// carry the type, and the subject's existing event it confirms gets it too.
    public var report: NotificationReport?
    /// What the V2 signed transactions among ``transactions`` cost (the daily rollup's revenue).
    public var prices: [TransactionPrice]

    public init(
        source: HistoryEvent.Source, sourceID: String, signedDateMs: Int64,
        transactions: [Transaction] = [], renewalInfos: [RenewalInfo] = [],
        events: [HistoryEvent] = [], reversedRefunds: [String] = [], report: NotificationReport? = nil,
        prices: [TransactionPrice] = []
    ) {
        self.source = source
        self.sourceID = sourceID
        self.signedDateMs = signedDateMs
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.events = events
        self.reversedRefunds = reversedRefunds
        self.report = report
        self.prices = prices
    }
}
