import PostgreSQLStore
import ServiceRuntime
import SQLiteStore
import StorageCore

/// `--database` and what selecting PostgreSQL adds.
extension DaemonFlags {
    static let databaseSpecs = [
        FlagSpec(
            "database", value: "PATH|URL", default: "./entitlements.sqlite",
            help: "SQLite database file (created when missing), or a postgres:// or postgresql:// URL "
                + "(PostgreSQL, for replicas; the password may also come from PGPASSWORD or ~/.pgpass)"),
        FlagSpec(
            "database-pool-size", value: "N", default: String(PostgresEntitlementStore.defaultPoolSize),
            help: "PostgreSQL read connections per process (each process also holds a writer, a listener "
                + "and a lease connection); ignored for SQLite"),
        FlagSpec(
            "database-mmap-mib", value: "MIB",
            default: String(EntitlementStore.Configuration.defaultMemoryMapBytes >> 20),
            help: "SQLite: read at most this much of the file through mmap instead of read() (0: read() only; "
                + "SQLite caps it at 2048); ignored for PostgreSQL"),
    ]

    /// --database-pool-size: 1 to 1,000 connections.
    static func databasePoolSize(_ flags: ParsedFlags) throws(FlagError) -> Int {
        try flags.int("database-pool-size", range: 1...1_000) ?? PostgresEntitlementStore.defaultPoolSize
    }

    /// --database-mmap-mib in bytes: 0 to 1 TiB (SQLite clamps it to its compile-time maximum,
    /// 2 GiB in Debian's build).
    static func databaseMemoryMapBytes(_ flags: ParsedFlags) throws(FlagError) -> Int {
        (try flags.int("database-mmap-mib", range: 0...(1 << 20)) ?? 0) << 20
    }
}
