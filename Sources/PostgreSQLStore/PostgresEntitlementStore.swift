import EntitlementPorts
import PostgreSQL
import ServiceRuntime
import StorageCore

/// The store on PostgreSQL, for N replicas sharing one database (``SQLStore`` on libpq's
/// connection). Per process: 1 writer + 1 listener + up to `poolSize` readers.
public typealias PostgresEntitlementStore = SQLStore<PostgreSQL.Connection>

extension SQLStore where DB == PostgreSQL.Connection {
    /// The read pool's size when none is given (`--database-pool-size`).
    public nonisolated static var defaultPoolSize: Int { 8 }

    /// Connects to `url` (`postgres://` or `postgresql://`, libpq conninfo semantics), migrates
    /// it under an advisory lock, and starts listening; the writer starts with ``start()``.
    ///
    /// Throws ``StoreError`` (never with the password in its message): `.schemaTooNew` when a
    /// newer entitlementd migrated the database, `.storageFailure` when it cannot be reached.
    /// `onListenerChange` is told when the LISTEN connection dropped (the cache was cleared and
    /// ``readiness`` turned unavailable) and when it listens again.
    public init(url: String, poolSize: Int = defaultPoolSize, configuration: Configuration,
                            onListenerChange: (@Sendable (StoreReadiness) -> Void)? = nil) throws {
        let parsed: ConnectionURL
        do {
            parsed = try ConnectionURL(url)
        } catch {
            throw StoreError(code: .storageFailure, message: "\(error)", cause: error)
        }
        let what = "opening the PostgreSQL database at \(parsed.redacted)"
        let db: PostgreSQL.Connection
        do {
            db = try PostgreSQL.Connection(url: parsed)
            try PostgresMigrator.migrate(db, nowMs: configuration.clock())
        } catch {
            throw StoreError.storage(error, what)
        }
        let replicaID = PostgresReplicas.newReplicaID()
        let readers = ReaderPool(limit: max(1, poolSize)) { try PostgreSQL.Connection(url: parsed) }
        // Each part throws StoreErrors of its own (the listener's names this database).
        try self.init(
            writerConnection: db, readers: readers, location: parsed.redacted, configuration: configuration,
            publish: { try PostgresReplicas.publish($0, replicaID: replicaID, users: $1, latestSequence: $2) },
            replicas: { hooks in
                try PostgresReplicas(url: parsed, replicaID: replicaID, hooks: hooks,
                                     onListenerChange: onListenerChange)
            })
    }

    /// Where the database is, without the password (for logs).
    public nonisolated var redactedURL: String { location }

    /// Throws, with a message that never shows the password, when `url` is one libpq cannot
    /// read.
    public static func validate(url: String) throws(StoreError) {
        do {
            _ = try ConnectionURL(url)
        } catch {
            throw StoreError(code: .storageFailure, message: "\(error)")
        }
    }

    /// `url` with its password replaced by `***`, for logs and errors.
    public static func redacted(url: String) -> String {
        // A URL libpq cannot parse may still hold a password: show only the scheme then.
        (try? ConnectionURL(url).redacted) ?? "postgresql://(unreadable URL)"
    }
}

/// The replicas sharing a PostgreSQL store's database, as this one keeps in step with them: a
/// LISTEN connection (``ChangeListener``) dropping their changed users from the cache, NOTIFYs
/// of its own writes, and the singleton lease.
final class PostgresReplicas: StoreReplicas {
    /// For the connections of its own the singleton lease opens.
    private let url: ConnectionURL
    private let listener: ChangeListener
    private let listenerStarted = Locked(false)

    init(url: ConnectionURL, replicaID: String, hooks: ReplicaHooks,
         onListenerChange: (@Sendable (StoreReadiness) -> Void)?) throws {
        self.url = url
        do {
            listener = try ChangeListener(
                url: url, replicaID: replicaID, cache: hooks.cache, announce: hooks.announce,
                latestSequence: hooks.latestSequence, onChange: onListenerChange)
        } catch {
            throw StoreError.storage(error, "opening the PostgreSQL database at \(url.redacted)")
        }
    }

    /// Unavailable while the LISTEN connection is down: this replica cannot hear the others'
    /// writes, and the listener failing to reconnect is how it learns the database is out of
    /// reach (see ``ChangeListener``). What `/healthz` answers, so haproxy takes the replica out.
    var readiness: StoreReadiness { listener.readiness }

    func start() {
        listenerStarted.withLock { started in
            guard !started else { return }
            started = true
            listener.start()
        }
    }

    func stop() async {
        await listener.stop()
    }

    func requestStop() {
        listener.requestStop()
    }

    /// A lease on a connection of its own, named `entitlementd-lease` in `pg_stat_activity`
    /// (unless the URL names one), which is how an operator finds the holder: the backend
    /// holding the advisory lock.
    func makeSingletonLease(onChange: @escaping @Sendable (SingletonLeaseChange) -> Void) -> any SingletonDutiesLease {
        let named = url["application_name"] == nil ? url.setting("application_name", to: "entitlementd-lease") : url
        return SingletonLease(configuration: .init(url: named), onChange: onChange)
    }

    /// NOTIFYs inside the writer's transaction: delivered at COMMIT, never for a rollback.
    static func publish(_ db: PostgreSQL.Connection, replicaID: String, users: [String]?,
                        latestSequence: Int64?) throws {
        if users.map({ !$0.isEmpty }) ?? true {
            for payload in ReplicaNotification.usersPayloads(
                replicaID: replicaID, users: users, maxBytes: ChangeListener.maxPayloadBytes) {
                try db.notify(channel: ChangeListener.usersChannel, payload: payload)
            }
        }
        if let latestSequence {
            let payload = ReplicaNotification.changesPayload(replicaID: replicaID, latestSequence: latestSequence)
            try db.notify(channel: ChangeListener.changesChannel, payload: payload)
        }
    }

    /// Random, so a replica tells its own notifications from the others'.
    static func newReplicaID() -> String {
        String(UInt64.random(in: 1...UInt64.max), radix: 36)
    }
}
