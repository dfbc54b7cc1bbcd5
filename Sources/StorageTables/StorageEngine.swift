import SQLDatabase

/// What the store needs from an engine beyond the SQL both engines share: how a write
/// transaction takes the write lock, how a multi-statement read gets one snapshot, and where the
/// change log's newest sequence lives.
///
/// Static members, so the generic store code reads them without a value to pass around and
/// each engine's specialization sees constants.
public protocol StorageEngine: SQLConnection {
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
    /// (`StoreReader.prepare(forFactsEpoch:)`, StorageCore): SQLite, where a snapshot costs only the
    /// WAL frames it keeps from being checkpointed; not a server's pooled connections.
    static var holdsReadSnapshots: Bool { get }
    /// A table expression named `name` with one row, column `id`, per row id of a list bound
    /// at one parameter with ``bindRowIDList(_:at:of:)``: one statement, one wait, for many
    /// rows on a server. Nil where the engine has no list parameter (SQLite, where a statement
    /// per id waits for nothing).
    static func rowIDListTable(_ name: String) -> String?
    /// Binds `rows` as the list ``rowIDListTable(_:)`` reads; called only where that is not nil.
    static func bindRowIDList(_ rows: [Int64], at index: Int32, of statement: Statement)
    /// Whether a write's new transactions are inserted by one statement from list parameters
    /// (``FactsRecorder/flushRowLists()``; its history events stay one statement each, which a
    /// list with their lookups did not beat): a server spends an executor start and a protocol
    /// exchange per statement, SQLite a few calls it needs anyway. Its lists carry Apple's ids as
    /// text, which is how ``bindDecimalID(_:at:of:)`` binds them on the one engine that lists.
    static var insertsRowLists: Bool { get }
    /// Binds `values` as one list parameter of text (nil: NULL); called only where
    /// ``insertsRowLists``.
    static func bindTextList(_ values: [String?], at index: Int32, of statement: Statement)
    /// Binds `values` as one list parameter of integers (nil: NULL), as ``bindTextList(_:at:of:)``.
    static func bindIntegerList(_ values: [Int64?], at index: Int32, of statement: Statement)
}
