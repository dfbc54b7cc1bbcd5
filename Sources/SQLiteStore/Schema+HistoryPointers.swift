import SQLite
import StorageCore

extension Schema {
    /// A history event about a stored transaction points at it
    /// (`transaction_rowid`) instead of repeating its transaction id, product id and original
    /// transaction id (three texts, ~37 of the row's ~86 bytes on the 1M x 3 set). Those three
    /// never change once a transaction is stored (no statement updates them, none deletes a
    /// transaction or chain), so reading them through the pointer gives back the bytes the
    /// event was written with. An event points only where all three are byte-equal to the
    /// transaction's; any other event (an auto-renew change naming another product, a
    /// notification about a transaction not stored, an event adopted from pending_events)
    /// keeps its own columns and a NULL pointer. Readers take `COALESCE(h.column, t.column)`
    /// (``HistoryEvent/historyColumns``). No foreign key: the writer would check it on every
    /// insert, and the pointer is only ever set from a row it just found.
    ///
    /// Rebuilt as in `history_events_compact_codes` (SQLite cannot drop NOT NULL in place; an
    /// update in place would leave the saved bytes as holes), in the clustered key's order, so
    /// the copy appends.
    package static let historyPointersMigration = Migration(
        "history_events_point_at_transactions",
        sql: rebuild("history_events", into: historyPointingAtTransactions, copy: """
            (\(historyColumnsWithPointer))
                SELECT h.event_id, h.user_rowid, h.kind, h.occurred_at_ms,
                    CASE WHEN \(samePointed) THEN NULL ELSE h.product_id END,
                    CASE WHEN \(samePointed) THEN NULL ELSE h.transaction_id END,
                    CASE WHEN \(samePointed) THEN NULL ELSE h.original_transaction_id END,
                    h.expires_at_ms, h.environment, h.source, h.apple_notification_type,
                    CASE WHEN \(samePointed) THEN t.id END
                FROM history_events h
                    LEFT JOIN transactions t ON t.transaction_id = h.transaction_id
                    LEFT JOIN chains c ON c.id = t.chain_rowid
                ORDER BY h.user_rowid, h.occurred_at_ms, h.event_id
            """))

    /// The columns of ``historyPointingAtTransactions`` and the shapes after it, in order: what
    /// each rebuild of `history_events` from here copies.
    static let historyColumnsWithPointer = """
        event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id, original_transaction_id,
            expires_at_ms, environment, source, apple_notification_type, transaction_rowid
        """

    /// `history_events` as ``historyPointersMigration`` makes it.
    static let historyPointingAtTransactions = changing(historyWithCodes, [
        "product_id": "product_id TEXT",
        "transaction_id": "transaction_id TEXT",
        "original_transaction_id": "original_transaction_id TEXT",
        "apple_notification_type": "apple_notification_type TEXT NOT NULL,\n    transaction_rowid INTEGER",
    ])

    /// Whether the event `h` names exactly the transaction `t` (of chain `c`) found by its id:
    /// NULL (so not) when no transaction has that id.
    private static let samePointed = """
        (t.product_id = h.product_id AND c.original_transaction_id = h.original_transaction_id)
        """
}
