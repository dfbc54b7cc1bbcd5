import PostgreSQL
import SQLDatabase
import StorageCore
import StorageTables

/// PostgreSQL as a ``StorageEngine``: replicas share the database, so every write transaction
/// first takes one transaction-level advisory lock. Declared here, not in the libpq gateway,
/// which knows no store.
///
/// Why one global lock (READ COMMITTED): the recorders read then write (find the chain, then
/// insert or move it; compare heads, then append changes), which is correct under SQLite's one
/// writer. Taking `pg_advisory_xact_lock` right after BEGIN makes the writers of all replicas
/// one writer again: each statement after the lock sees every earlier commit, so the same
/// receipt or notification applied by two replicas at once records once, an ownership conflict
/// is decided once, and change sequences are assigned in commit order. The cost is that write
/// transactions never run in parallel across replicas; group commit keeps that to one lock and
/// one commit per batch per replica. Unique constraints and ON CONFLICT stay the backstop.
extension PostgreSQL.Connection: StorageEngine {
    /// The writers' lock key: "entwrite" in ASCII; the singleton lease uses a different key.
    static let writerLockKey: Int64 = 0x656E_7477_7269_7465
    public static let beginWrite = ["BEGIN", "SELECT pg_advisory_xact_lock(\(writerLockKey))"]
    public static let beginSnapshotRead = ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
    /// Identity sequences are not transactional (a rolled-back insert still used its number, and
    /// another session's uncommitted one would show), so the newest committed change is read
    /// from the table, with the prune's high-water mark for when pruning emptied it.
    public static let latestChangeSequenceSQL = """
        SELECT GREATEST(COALESCE((SELECT MAX(sequence) FROM entitlement_changes), 0), pruned_through)
        FROM change_log_identity
        """
    public static let recordPrunedThroughSQL: String? =
        "UPDATE change_log_identity SET pruned_through = GREATEST(pruned_through, ?1)"
    public static let isSharedByReplicas = true
    /// No lastval() round trip for it: callers take their general path instead.
    public var insertedRowID: Int64? { nil }
    public static let returningIDClause = " RETURNING id"
    /// PostgreSQL's columns stay TEXT: the id as text.
    public static func bindDecimalID(_ id: String?, at index: Int32, of statement: Statement) {
        statement.bind(id, at: index)
    }
    /// PostgreSQL's event ids stay TEXT: the id as text, the column as it is.
    public static func bindHistoryEventID(_ id: String, at index: Int32, of statement: Statement) {
        statement.bind(id, at: index)
    }
    public static func historyEventIDText(_ column: String) -> String { column }
    /// PostgreSQL keeps `expires_at_ms` NOT NULL: every event writes its own.
    public static let historyExpiryMayPoint = false
    public static let holdsReadSnapshots = false
    /// A `bigint[]` parameter, unnested.
    public static func rowIDListTable(_ name: String) -> String? { "unnest(CAST(? AS BIGINT[])) AS \(name)(id)" }
    /// As ``bindIntegerList(_:at:of:)``: row ids are never NULL.
    public static func bindRowIDList(_ rows: [Int64], at index: Int32, of statement: Statement) {
        bindIntegerList(rows, at: index, of: statement)
    }
    public static let insertsRowLists = true
    /// The array's text form, every element quoted (`{"a","b\"c",NULL}`): a quote or backslash
    /// in a value is escaped with a backslash, as array_in reads it.
    public static func bindTextList(_ values: [String?], at index: Int32, of statement: Statement) {
        var text: [UInt8] = [UInt8(ascii: "{")]
        for (offset, value) in values.enumerated() {
            if offset > 0 { text.append(UInt8(ascii: ",")) }
            guard let value else {
                text += "NULL".utf8
                continue
            }
            text.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
                text.append(byte)
            }
            text.append(UInt8(ascii: "\""))
        }
        text.append(UInt8(ascii: "}"))
        statement.bind(String(decoding: text, as: UTF8.self), at: index)
    }
    /// The array's text form, `{1,NULL,3}`.
    public static func bindIntegerList(_ values: [Int64?], at index: Int32, of statement: Statement) {
        statement.bind("{" + values.lazy.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}",
                       at: index)
    }
}
