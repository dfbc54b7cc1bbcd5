import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// A history event that points at its transaction
    /// (`transaction_rowid`) and carries that transaction's expiry keeps `expires_at_ms` NULL
    /// and reads it through the pointer, as the three ids already are
    /// (`history_events_point_at_transactions`): six bytes of a ~36-byte row on the 1M x 3 set,
    /// where every purchase and renewal event repeats its transaction's expiry.
    ///
    /// Reading it back gives the bytes written because a transaction's expiry changes only
    /// later (``Transaction/merged(with:)`` takes the later of two, for a renewal-date
    /// extension), and the one statement that moves it first writes the old value into the
    /// events that read it (`FactsRecorder.keepEventExpiries`). So only a set expiry equal to the
    /// event's is shared; an event written while its transaction had none (the event says 0)
    /// or with another copy's expiry keeps its own value. A later migration or statement that
    /// changes `transactions.expires_date_ms` must first write it into the events that read
    /// it. PostgreSQL keeps the column NOT NULL and writes every value
    /// (``StorageEngine/historyExpiryMayPoint``); `migrate-store` copies the value read
    /// through the pointer.
    ///
    /// Rebuilt as the earlier history migrations were, in the clustered key's order, so the
    /// copy appends; the key, the unique index and every other column are as before.
    package static let pointedExpiryMigration = Migration(
        "history_events_expiry_through_pointer",
        sql: rebuild("history_events", into: changing(historyWithCompactIDs, [
            "expires_at_ms": "expires_at_ms INTEGER",
        ]), copy: """
            (\(historyColumnsWithPointer))
                SELECT h.event_id, h.user_rowid, h.kind, h.occurred_at_ms, h.product_id, h.transaction_id,
                    h.original_transaction_id,
                    CASE WHEN t.expires_date_ms = h.expires_at_ms THEN NULL ELSE h.expires_at_ms END,
                    h.environment, h.source, h.apple_notification_type, h.transaction_rowid
                FROM history_events h LEFT JOIN transactions t ON t.id = h.transaction_rowid
                ORDER BY h.user_rowid, h.occurred_at_ms, h.event_id
            """))
}
