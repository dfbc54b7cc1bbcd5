import Entitlements
import SQLDatabase

/// How a ``HistoryEvent`` maps to a `history_events` row.
extension HistoryEvent {
    /// Columns read by ``init(row:)``, from `history_events` aliased as `h`.
    static let selectColumns = """
        h.event_id, h.kind, h.occurred_at_ms, h.product_id, h.transaction_id,
        h.original_transaction_id, h.expires_at_ms, h.environment, h.source,
        h.apple_notification_type
        """

    init(row: some SQLStatement) {
        self.init(
            eventID: row.string(at: 0),
            kind: Kind(rawValue: row.string(at: 1)) ?? .other,
            occurredAtMs: row.int64(at: 2),
            productID: row.string(at: 3),
            transactionID: row.string(at: 4),
            originalTransactionID: row.string(at: 5),
            expiresAtMs: row.int64(at: 6),
            environment: Environment(rawValue: row.string(at: 7)) ?? .production,
            source: Source(rawValue: row.string(at: 8)) ?? .receipt,
            appleNotificationType: row.string(at: 9))
    }
}
