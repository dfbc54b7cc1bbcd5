import SQLite
import StorageCore

extension Schema {
    /// `history_events.event_id` loses its declared type and keeps
    /// the ids the store derives from a transaction id as INTEGERs (``CompactEventID``). The id
    /// is in the clustered key and in the unique index, so on the 1M x 3 set this saves its
    /// bytes twice per event ("renewal:20000001", 16 bytes, becomes a 4-byte integer; Apple's
    /// 16-digit ids save 16 bytes per copy). Every other column, the key and the index are as
    /// before (`history_events_point_at_transactions`); `pending_events` keeps text ids.
    ///
    /// Rebuilt as the earlier history migrations were, reading the old table in its clustered
    /// order (the new key differs only among one user's events of one millisecond), so the
    /// copy nearly appends; the unique index is filled row by row as before.
    package static let compactEventIDsMigration = Migration(
        "history_events_compact_ids",
        sql: rebuild("history_events", into: historyWithCompactIDs, copy: """
            (\(historyColumnsWithPointer))
                SELECT \(CompactEventID.storedSQL("event_id")), user_rowid, kind, occurred_at_ms, product_id,
                    transaction_id, original_transaction_id, expires_at_ms, environment, source,
                    apple_notification_type, transaction_rowid
                FROM history_events ORDER BY user_rowid, occurred_at_ms, event_id
            """))

    /// `history_events` as ``compactEventIDsMigration`` makes it.
    static let historyWithCompactIDs = changing(historyPointingAtTransactions, [
        "event_id": "event_id NOT NULL UNIQUE",
    ])
}
