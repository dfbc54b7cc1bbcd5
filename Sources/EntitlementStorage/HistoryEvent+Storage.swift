import Entitlements
import SQLDatabase

/// How a ``HistoryEvent`` maps to a `history_events` row (kind, environment and source as
/// ``StorageCodes``).
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
            kind: StorageCodes.kind(row.int64(at: 1)),
            occurredAtMs: row.int64(at: 2),
            productID: row.string(at: 3),
            transactionID: row.string(at: 4),
            originalTransactionID: row.string(at: 5),
            expiresAtMs: row.int64(at: 6),
            environment: StorageCodes.environment(row.int64(at: 7)),
            source: StorageCodes.source(row.int64(at: 8)),
            appleNotificationType: row.string(at: 9))
    }
}
