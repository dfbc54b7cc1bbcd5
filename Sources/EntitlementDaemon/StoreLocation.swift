import EntitlementPorts
import PostgreSQLStore
import SQLiteStore
import StorageCore

/// What `--database` names: a SQLite file path, or a PostgreSQL URL.
enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// `postgres://` and `postgresql://` select PostgreSQL (libpq's URI prefixes); anything else
    /// is a SQLite path, so existing deployments keep their meaning.
    init(_ database: String) {
        let lowered = database.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(url: database)
        } else {
            self = .sqlite(path: database)
        }
    }

    /// Throws, with a message that never shows the password, when a PostgreSQL URL is one
    /// libpq cannot read; a path is not checked here (opening it says what is wrong).
    func validate() throws(StoreError) {
        guard case let .postgres(url) = self else { return }
        try PostgresEntitlementStore.validate(url: url)
    }

    /// For logs and errors: the path, or the URL with its password replaced by `***`.
    var redacted: String {
        switch self {
        case let .sqlite(path): return path
        case let .postgres(url): return PostgresEntitlementStore.redacted(url: url)
        }
    }

    /// Opens (creating, migrating) the store. `poolSize` bounds PostgreSQL's read connections;
    /// `onListenerChange` is told when PostgreSQL's LISTEN connection dropped or came back.
    func open(configuration: StoreConfiguration, poolSize: Int,
              onListenerChange: (@Sendable (StoreReadiness) -> Void)? = nil) throws -> any StoreBackend {
        switch self {
        case let .sqlite(path):
            return try EntitlementStore(path: path, configuration: configuration)
        case let .postgres(url):
            return try PostgresEntitlementStore(url: url, poolSize: poolSize, configuration: configuration,
                                                onListenerChange: onListenerChange)
        }
    }
}
