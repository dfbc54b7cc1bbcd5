import EntitlementPorts
import PostgreSQL

/// A store the daemon runs, whichever engine: the port's protocols plus lifecycle, statistics
/// and the singleton-duties switch. ``EntitlementStore`` (SQLite) and
/// ``PostgresEntitlementStore`` conform; the service above sees only the port's protocols.
public protocol StoreBackend: EntitlementRepository, EntitlementChangeLog, EntitlementChangeUpkeep, WebhookOutbox,
    ReconciliationProgress, TransactionHistoryRevisions, AccountTokens, AnyObject {
    /// Whether calls can be served now; cheap, read by every `/healthz`.
    var readiness: StoreReadiness { get }
    /// What the writer has committed so far; cheap, for metrics.
    var statistics: StoreStatistics { get }
    /// Starts the store's threads; later calls do nothing.
    func start()
    /// Runs until ``close()`` has drained the writer.
    func run() async
    /// Commits what is queued, stops the threads, closes every connection.
    func close() async
    /// Whether this process runs the writer's timed work (due changes, pruning, the baseline).
    func setSingletonDuties(active: Bool)
    /// The lease deciding which of the processes sharing this store runs the singleton duties,
    /// reporting to `onChange` from its thread; nil when the store has one process (SQLite),
    /// which holds the duties from startup.
    func makeSingletonLease(onChange: @escaping @Sendable (SingletonLease.Change) -> Void) -> SingletonLease?
}

extension EntitlementStore: StoreBackend {
    /// Always ready: the file is local, and its faults fail the calls that meet them.
    public var readiness: StoreReadiness { .ready }

    /// None: one process owns the file.
    public func makeSingletonLease(onChange: @escaping @Sendable (SingletonLease.Change) -> Void) -> SingletonLease? {
        nil
    }
}
extension PostgresEntitlementStore: StoreBackend {}

/// What `--database` names: a SQLite file path, or a PostgreSQL URL.
public enum StoreLocation: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// `postgres://` and `postgresql://` select PostgreSQL (libpq's URI prefixes); anything else
    /// is a SQLite path, so existing deployments keep their meaning.
    public init(_ database: String) {
        let lowered = database.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            self = .postgres(url: database)
        } else {
            self = .sqlite(path: database)
        }
    }

    /// Throws, with a message that never shows the password, when a PostgreSQL URL is one
    /// libpq cannot read; a path is not checked here (opening it says what is wrong).
    public func validate() throws(StoreError) {
        guard case let .postgres(url) = self else { return }
        do {
            _ = try ConnectionURL(url)
        } catch {
            throw StoreError(code: .storageFailure, message: "\(error)")
        }
    }

    /// For logs and errors: the path, or the URL with its password replaced by `***`.
    public var redacted: String {
        switch self {
        case let .sqlite(path): return path
        case let .postgres(url):
            // A URL libpq cannot parse may still hold a password: show only the scheme then.
            return (try? ConnectionURL(url).redacted) ?? "postgresql://(unreadable URL)"
        }
    }

    /// Opens (creating, migrating) the store. `poolSize` bounds PostgreSQL's read connections;
    /// `onListenerChange` is told when PostgreSQL's LISTEN connection dropped or came back.
    public func open(configuration: EntitlementStore.Configuration, poolSize: Int,
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
