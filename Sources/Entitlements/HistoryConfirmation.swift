/// A notification confirming a happening that is already in history (a receipt, or another
/// notification, reported the transaction first): the existing event gets the notification's
/// type, and a purchase notification makes the event a PURCHASE.
///
/// One event per happening: the store updates the event in place, so its id, date and
/// `source` (who reported it first) stay as they were.
public struct HistoryConfirmation: Sendable, Hashable {
    /// The ids the existing event may have; at most one of them exists.
    public var eventIDs: [String]
    /// For a refund, the refund's date: a transaction refunded, reversed and refunded again has
    /// one refund event per date, and only the one at this date is confirmed.
    public var occurredAtMs: Int64?
    /// The kind the event has afterwards; `nil` keeps its kind.
    public var kind: HistoryEvent.Kind?
    public var appleNotificationType: String

    public init(eventIDs: [String], occurredAtMs: Int64? = nil, kind: HistoryEvent.Kind? = nil,
                appleNotificationType: String) {
        self.eventIDs = eventIDs
        self.occurredAtMs = occurredAtMs
        self.kind = kind
        self.appleNotificationType = appleNotificationType
    }
}
