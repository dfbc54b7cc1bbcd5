/// Applies ordered, append-only ``Migration``s, each in its own IMMEDIATE transaction.
///
/// The version is `PRAGMA user_version` (the count of applied migrations), written in the same
/// transaction as the migration so a crash never leaves them apart. `schema_migrations` keeps
/// each applied name and time for operators, and lets us detect an edited history.
///
/// Foreign keys are off while migrating (as GRDB does), because rebuilding a table that others
/// reference (create, copy, drop, rename: how SQLite changes a column's constraints) fails
/// otherwise; each migration runs `PRAGMA foreign_key_check` before it commits instead.
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(_ migrations: [Migration]) {
        self.migrations = migrations
    }

    /// The version a fully migrated database has.
    public var latestVersion: Int { migrations.count }

    /// Brings `connection`'s database to ``latestVersion``; returns the version it found.
    ///
    /// Throws ``MigrationError/schemaTooNew(found:known:)`` before touching anything when the
    /// file is newer than this binary.
    @discardableResult
    public func migrate(_ connection: Connection, nowMs: Int64) throws -> Int {
        let found = try currentVersion(connection)
        guard found <= latestVersion else {
            throw MigrationError.schemaTooNew(found: found, known: latestVersion)
        }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at_ms INTEGER NOT NULL
            )
            """)
        try checkHistory(connection)
        guard found < latestVersion else { return found }
        // PRAGMA foreign_keys is a no-op inside a transaction, so it is switched out here.
        let enforcesForeignKeys = try connection.scalarInt64("PRAGMA foreign_keys") == 1
        if enforcesForeignKeys { try connection.execute("PRAGMA foreign_keys = OFF") }
        defer { if enforcesForeignKeys { try? connection.execute("PRAGMA foreign_keys = ON") } }
        for index in found..<latestVersion {
            let migration = migrations[index]
            let version = index + 1
            try connection.transaction(.immediate) {
                // Re-check inside the write lock: another process may have migrated meanwhile.
                guard try currentVersion(connection) == index else { return }
                try connection.execute(migration.sql)
                if let table = try connection.scalarString("PRAGMA foreign_key_check") {
                    throw MigrationError.foreignKeyViolation(version: version, table: table)
                }
                let record = try connection.prepare(
                    "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)")
                record.bind(version, at: 1)
                record.bind(migration.name, at: 2)
                record.bind(nowMs, at: 3)
                try record.execute()
                try connection.execute("PRAGMA user_version = \(version)")
            }
        }
        return found
    }

    /// The number of migrations applied to `connection`'s database.
    public func currentVersion(_ connection: Connection) throws -> Int {
        Int(try connection.scalarInt64("PRAGMA user_version") ?? 0)
    }

    private func checkHistory(_ connection: Connection) throws {
        let applied = try connection.prepare("SELECT version, name FROM schema_migrations ORDER BY version")
        defer { applied.reset() }
        while try applied.step() {
            let version = Int(applied.int64(at: 0))
            let name = applied.string(at: 1)
            guard version >= 1, version <= migrations.count else { continue }
            let expected = migrations[version - 1].name
            if name != expected {
                throw MigrationError.historyMismatch(version: version, applied: name, expected: expected)
            }
        }
    }
}
