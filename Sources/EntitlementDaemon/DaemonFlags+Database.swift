import EntitlementStorage
import ServiceRuntime

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
    ]

    /// --database-pool-size: 1 to 1,000 connections.
    static func databasePoolSize(_ flags: ParsedFlags) throws(FlagError) -> Int {
        try flags.int("database-pool-size", range: 1...1_000) ?? PostgresEntitlementStore.defaultPoolSize
    }
}
