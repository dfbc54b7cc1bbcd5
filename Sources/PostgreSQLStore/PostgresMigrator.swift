import EntitlementPorts
import PostgreSQL
import SQLiteStore
import StorageCore

/// Applies ``PostgresSchema/migrations`` under a session advisory lock, so replicas that start
/// together migrate once: the first takes the lock and migrates, the others wait for it, then
/// find nothing left to do.
///
/// `schema_migrations` holds each applied migration's version, name and time; the version is
/// the count applied. Each migration commits with its row, so a crash never leaves them apart.
/// A database migrated by a newer binary stops startup (``StoreError/Code/schemaTooNew``) before
/// anything is touched; an applied migration whose name differs means the history was edited
/// (``StoreError/Code/schemaMismatch``).
enum PostgresMigrator {
    /// "entmigr" in ASCII: distinct from the writers' lock and the singleton lease.
    static let lockKey: Int64 = 0x0065_6E74_6D69_6772

    static var latestVersion: Int { PostgresSchema.migrations.count }

    /// Brings `db`'s database to ``latestVersion``; returns the version it found.
    @discardableResult
    static func migrate(_ db: PostgreSQL.Connection, nowMs: Int64) throws -> Int {
        try db.advisoryLock(lockKey)
        defer { _ = try? db.advisoryUnlock(lockKey) }
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at_ms BIGINT NOT NULL
            )
            """)
        let found = Int(try db.scalarInt64("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0)
        guard found <= latestVersion else {
            throw StoreError(
                code: .schemaTooNew,
                message: "database schema version \(found) is newer than this entitlementd knows "
                    + "(\(latestVersion)): upgrade entitlementd or point --database elsewhere")
        }
        try checkHistory(db)
        for index in found..<latestVersion {
            let migration = PostgresSchema.migrations[index]
            try db.transaction(beginning: ["BEGIN"]) {
                try db.execute(migration.sql)
                let record = try db.prepare(
                    "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)")
                record.bind(index + 1, at: 1)
                record.bind(migration.name, at: 2)
                record.bind(nowMs, at: 3)
                try record.execute()
            }
        }
        return found
    }

    private static func checkHistory(_ db: PostgreSQL.Connection) throws {
        let applied = try db.prepare("SELECT version, name FROM schema_migrations ORDER BY version")
        defer { applied.reset() }
        while try applied.step() {
            let version = Int(applied.int64(at: 0))
            let name = applied.string(at: 1)
            guard version >= 1, version <= latestVersion else { continue }
            let expected = PostgresSchema.migrations[version - 1].name
            guard name == expected else {
                throw StoreError(
                    code: .schemaMismatch,
                    message: "database migration \(version) is '\(name)' but this entitlementd's is '\(expected)': "
                        + "use the entitlementd that created it or point --database elsewhere")
            }
        }
    }
}
