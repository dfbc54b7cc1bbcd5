import Entitlements
import SQLDatabase

/// How a ``HistoryEvent`` maps to a `history_events` row (kind, environment and source as
/// ``StorageCodes``).
extension HistoryEvent {
    /// The columns ``init(row:)`` reads from `history_events` (``historyFrom``): an event that
    /// points at its transaction (`history_events_point_at_transactions`) reads the three ids
    /// from that transaction and its chain, and its expiry from the transaction where it is
    /// NULL (`history_events_expiry_through_pointer`). `eventID`: the SQL of the id's text
    /// (``StorageEngine/historyEventIDText(_:)`` of `h.event_id`).
    package static func historyColumns(eventID: String) -> String {
        """
        \(eventID), h.kind, h.occurred_at_ms, COALESCE(h.product_id, \(ProductNameSQL.name("t.product_name_rowid"))),
        COALESCE(h.transaction_id, t.transaction_id),
        COALESCE(h.original_transaction_id, c.original_transaction_id),
        COALESCE(h.expires_at_ms, t.expires_date_ms), h.environment, h.source, h.apple_notification_type,
        COALESCE(h.actor, ''), COALESCE(h.reason, '')
        """
    }
    /// `history_events` as `h`, with the transaction `t` and chain `c` an event may point at.
    package static let historyFrom = """
        history_events h LEFT JOIN transactions t ON t.id = h.transaction_rowid
            LEFT JOIN chains c ON c.id = t.chain_rowid
        """

    /// Inserts an event (bound by ``FactsRecorder/bind(_:owner:to:pending:)``) into a user's history,
    /// pointing at its transaction when the transaction with its id is stored with the same
    /// product and original transaction id (then the three columns stay NULL); nothing when
    /// its id is already recorded. `WHERE true` keeps SQLite from reading ON CONFLICT as a
    /// join constraint.
    package static let insertHistorySQL = """
        INSERT INTO history_events (
            event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
            original_transaction_id, expires_at_ms, environment, source, apple_notification_type,
            transaction_rowid)
        SELECT ?1, ?2, ?3, ?4, CASE WHEN p.id IS NULL THEN ?5 END, CASE WHEN p.id IS NULL THEN ?6 END,
            CASE WHEN p.id IS NULL THEN ?7 END, ?8, ?9, ?10, ?11, p.id
        FROM (SELECT 1 AS one) AS o LEFT JOIN (
            SELECT t.id FROM transactions t JOIN chains c ON c.id = t.chain_rowid
            WHERE t.transaction_id = ?6 AND t.product_name_rowid = \(ProductNameSQL.row("?5"))
                AND c.original_transaction_id = ?7) AS p ON true
        WHERE true
        ON CONFLICT (event_id) DO NOTHING
        """

    /// Inserts an event that names, byte for byte, the transaction in row `?9`
    /// (``HistoryPointerTarget``): the row ``insertHistorySQL`` would store for it, without its
    /// lookup. Binds the event id (1), owner (2), kind (3), occurred (4), expires (5, NULL when
    /// read through the pointer), environment (6), source (7), notification type (8) and the
    /// transaction's row (9).
    package static let insertPointingHistorySQL = """
        INSERT INTO history_events (
            event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
            original_transaction_id, expires_at_ms, environment, source, apple_notification_type,
            transaction_rowid)
        VALUES (?, ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, ?)
        ON CONFLICT (event_id) DO NOTHING
        """

    /// Columns read by ``init(row:)`` from `pending_events` aliased as `h` (pending events
    /// never point: their columns are always their own).
    package static let selectColumns = """
        h.event_id, h.kind, h.occurred_at_ms, h.product_id, h.transaction_id,
        h.original_transaction_id, h.expires_at_ms, h.environment, h.source,
        h.apple_notification_type, '', ''
        """

    /// Reads the twelve columns of ``historyColumns(eventID:)`` or ``selectColumns``.
    package init(row: some SQLStatement) {
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
            appleNotificationType: row.string(at: 9),
            actor: row.string(at: 10),
            reason: row.string(at: 11))
    }
}
