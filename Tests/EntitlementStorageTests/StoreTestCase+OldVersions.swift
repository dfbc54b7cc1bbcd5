import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables

extension StoreTestCase {
    /// A file as a binary at schema `version` left it: WAL, the landed migrations 1...version,
    /// then `rows`, SQL in that version's layout (upgrade tests start from one).
    func createFile(at path: String, version: Int, rows: String) throws {
        let db = try Connection(path: path)
        defer { db.close() }
        try db.execute("PRAGMA journal_mode = WAL")
        try UserKey.define(on: db)
        try CompactEventID.define(on: db)
        try Migrator(Array(Schema.migrator.migrations.prefix(version))).migrate(db, nowMs: 1)
        try db.execute(rows)
    }
}
