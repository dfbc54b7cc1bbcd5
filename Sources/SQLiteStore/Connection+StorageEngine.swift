import SQLDatabase
import SQLite
import StorageCore
import StorageTables

/// SQLite as a ``StorageEngine``: one process owns the file, so a write transaction needs only
/// SQLite's own write lock. Declared here, not in the SQLite gateway, which knows no store.
extension Connection: StorageEngine {
    /// IMMEDIATE: the write lock at BEGIN, so a writer never fails on a lock upgrade.
    public static let beginWrite = ["BEGIN IMMEDIATE"]
    public static let beginSnapshotRead = ["BEGIN DEFERRED"]
    /// AUTOINCREMENT's counter survives pruning and is written in the inserting transaction.
    public static let latestChangeSequenceSQL = "SELECT seq FROM sqlite_sequence WHERE name = 'entitlement_changes'"
    public static let recordPrunedThroughSQL: String? = nil
    /// One process owns the file (WAL allows no other writer process in practice for us).
    public static let isSharedByReplicas = false
    public var insertedRowID: Int64? { lastInsertRowID }
    public static let returningIDClause = ""
    /// A canonical decimal id (``DecimalText``) as its INTEGER, anything else as text.
    public static func bindDecimalID(_ id: String?, at index: Int32, of statement: Statement) {
        if let id, let value = DecimalText.value(id) {
            statement.bind(Int64(value), at: index)
        } else {
            statement.bind(id, at: index)
        }
    }
    /// A derived id with a canonical number as its INTEGER, anything else as text.
    public static func bindHistoryEventID(_ id: String, at index: Int32, of statement: Statement) {
        if let value = CompactEventID.value(id) {
            statement.bind(value, at: index)
        } else {
            statement.bind(id, at: index)
        }
    }
    public static func historyEventIDText(_ column: String) -> String { CompactEventID.textSQL(column) }
    public static let historyExpiryMayPoint = true
    public static let holdsReadSnapshots = true
    /// No list parameter: a statement per id costs no round trip here.
    public static func rowIDListTable(_ name: String) -> String? { nil }
    public static func bindRowIDList(_ rows: [Int64], at index: Int32, of statement: Statement) {}
    /// A statement per row: each is a few library calls, with no round trip to save.
    public static let insertsRowLists = false
    public static func bindTextList(_ values: [String?], at index: Int32, of statement: Statement) {}
    public static func bindIntegerList(_ values: [Int64?], at index: Int32, of statement: Statement) {}
}
