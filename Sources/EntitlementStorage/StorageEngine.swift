import SQLDatabase
import SQLite

/// What the store needs from an engine beyond the SQL both engines share: how a write
/// transaction takes the write lock, how a multi-statement read gets one snapshot, and where the
/// change log's newest sequence lives.
///
/// Static members, so the generic store code reads them without a value to pass around and
/// each engine's specialization sees constants.
protocol StorageEngine: SQLConnection {
    /// Opens the writer's transaction holding the write lock until COMMIT.
    static var beginWrite: [String] { get }
    /// Opens a read-only transaction whose statements all see one snapshot.
    static var beginSnapshotRead: [String] { get }
    /// The newest change sequence ever assigned and committed (pruning never lowers it).
    static var latestChangeSequenceSQL: String { get }
    /// Run after a prune deleted changes through `?1`, when the engine must remember that
    /// sequence itself (see ``latestChangeSequenceSQL``).
    static var recordPrunedThroughSQL: String? { get }
    /// Whether other processes (replicas) write to the same database.
    static var isSharedByReplicas: Bool { get }
    /// The row id of the row the last INSERT on this connection created, where the engine
    /// knows it without another statement; nil where it does not (a caller then looks it up).
    var insertedRowID: Int64? { get }
    /// What an INSERT whose new row id the caller needs ends with: ` RETURNING id` where
    /// ``insertedRowID`` is nil, nothing where the engine reports the row itself. SQLite
    /// answers RETURNING from an ephemeral table it opens, fills and closes per statement (the
    /// user and chain inserts' were ~1.4 % of the server's CPU on distinct SubmitReceipt calls).
    static var returningIDClause: String { get }
    /// Binds an Apple id bound for `transactions.transaction_id`, `web_order_line_item_id` or
    /// `chains.original_transaction_id` (or compared with one) as that column keeps it
    /// (`transactions_decimal_ids`, `chains_decimal_ids`): a value of one type never equals a
    /// value of the other, so every such statement binds through here.
    static func bindDecimalID(_ id: String?, at index: Int32, of statement: Statement)
    /// Binds an event id bound for `history_events.event_id` (or compared with it) as that
    /// column keeps it (``CompactEventID``), as ``bindDecimalID(_:at:of:)`` does for its columns.
    static func bindHistoryEventID(_ id: String, at index: Int32, of statement: Statement)
    /// SQL for the text of the history event id stored in `column`: what readers select, sort
    /// by and compare cursors with.
    static func historyEventIDText(_ column: String) -> String
    /// Whether `history_events.expires_at_ms` is NULL for an event pointing at a transaction
    /// with the same expiry (`history_events_expiry_through_pointer`); readers take
    /// `COALESCE(h.expires_at_ms, t.expires_date_ms)` either way.
    static var historyExpiryMayPoint: Bool { get }
    /// Whether facts reads may keep one read transaction open across calls
    /// (``StoreReader/prepare(forFactsEpoch:)``): SQLite, where a snapshot costs only the
    /// WAL frames it keeps from being checkpointed; not a server's pooled connections.
    static var holdsReadSnapshots: Bool { get }
}

extension Connection: StorageEngine {
    /// IMMEDIATE: the write lock at BEGIN, so a writer never fails on a lock upgrade.
    static let beginWrite = ["BEGIN IMMEDIATE"]
    static let beginSnapshotRead = ["BEGIN DEFERRED"]
    /// AUTOINCREMENT's counter survives pruning and is written in the inserting transaction.
    static let latestChangeSequenceSQL = "SELECT seq FROM sqlite_sequence WHERE name = 'entitlement_changes'"
    static let recordPrunedThroughSQL: String? = nil
    /// One process owns the file (WAL allows no other writer process in practice for us).
    static let isSharedByReplicas = false
    var insertedRowID: Int64? { lastInsertRowID }
    static let returningIDClause = ""
    /// A canonical decimal id (``DecimalText``) as its INTEGER, anything else as text.
    static func bindDecimalID(_ id: String?, at index: Int32, of statement: Statement) {
        if let id, let value = DecimalText.value(id) {
            statement.bind(Int64(value), at: index)
        } else {
            statement.bind(id, at: index)
        }
    }
    /// A derived id with a canonical number as its INTEGER, anything else as text.
    static func bindHistoryEventID(_ id: String, at index: Int32, of statement: Statement) {
        if let value = CompactEventID.value(id) {
            statement.bind(value, at: index)
        } else {
            statement.bind(id, at: index)
        }
    }
    static func historyEventIDText(_ column: String) -> String { CompactEventID.textSQL(column) }
    static let historyExpiryMayPoint = true
    static let holdsReadSnapshots = true
}
