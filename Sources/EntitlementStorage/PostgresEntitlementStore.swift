import EntitlementPorts
import Entitlements
import PostgreSQL
import ServiceRuntime

/// The PostgreSQL ``EntitlementRepository``: one database shared by N stateless replicas.
///
/// Each replica runs what the SQLite store runs (``StoreCore``): a writer thread that
/// group-commits queued writes, a facts cache, read connections. What sharing adds:
/// - the writer's transactions take one advisory lock after BEGIN, so the writers of all
///   replicas serialize (``PostgreSQL/Connection/beginWrite``, where the reasoning is);
/// - each write transaction NOTIFYs the users it changed and the newest change sequence, and a
///   ``ChangeListener`` per replica invalidates its cache and wakes its change observers;
/// - the read pool is bounded (server connections are a shared resource);
/// - the writer's timed work runs only while ``setSingletonDuties(active:)`` says so (the
///   daemon's singleton lease).
///
/// Consistency: a replica's own writes are visible to its reads when acknowledged (as with
/// SQLite); another replica's within the NOTIFY's delivery (milliseconds).
/// Connections per replica: 1 writer + 1 listener + up to `poolSize` readers.
public final class PostgresEntitlementStore: EntitlementRepository, CoreBackedStore {
    /// The read pool's size when none is given (`--database-pool-size`).
    public static let defaultPoolSize = 8

    /// Where the database is, without the password (for logs).
    public let redactedURL: String
    /// For the connections of its own the singleton lease opens (PostgresEntitlementStore+Lease).
    let url: ConnectionURL
    let core: StoreCore<PostgreSQL.Connection>
    /// The change log, outbox, watermarks and revisions (``CoreBackedStore``).
    public var coreOperations: StoreCoreOperations { StoreCoreOperations(core) }
    private let listener: ChangeListener
    /// Connects to `url` (`postgres://` or `postgresql://`, libpq conninfo semantics), migrates
    /// it under an advisory lock, and starts listening; the writer starts with ``start()``.
    ///
    /// Throws ``StoreError`` (never with the password in its message): `.schemaTooNew` when a
    /// newer entitlementd migrated the database, `.storageFailure` when it cannot be reached.
    /// `onListenerChange` is told when the LISTEN connection dropped (the cache was cleared and
    /// ``readiness`` turned unavailable) and when it listens again.
    public init(url: String, poolSize: Int = defaultPoolSize, configuration: EntitlementStore.Configuration,
                onListenerChange: (@Sendable (StoreReadiness) -> Void)? = nil) throws {
        let parsed: ConnectionURL
        do {
            parsed = try ConnectionURL(url)
        } catch {
            throw StoreError(code: .storageFailure, message: "\(error)", cause: error)
        }
        redactedURL = parsed.redacted
        self.url = parsed
        let what = "opening the PostgreSQL database at \(parsed.redacted)"
        let db: PostgreSQL.Connection
        do {
            db = try PostgreSQL.Connection(url: parsed)
            try PostgresMigrator.migrate(db, nowMs: configuration.clock())
        } catch {
            throw StoreError.storage(error, what)
        }
        let replicaID = Self.newReplicaID()
        let readers = ReaderPool(limit: max(1, poolSize)) { try PostgreSQL.Connection(url: parsed) }
        do {
            core = try StoreCore(writerConnection: db, readers: readers, configuration: configuration) {
                try Self.publish($0, replicaID: replicaID, users: $1, latestSequence: $2)
            }
        } catch {
            throw StoreError.storage(error, what)
        }
        let core = self.core
        do {
            listener = try ChangeListener(
                url: parsed, replicaID: replicaID, cache: core.cache,
                announce: { core.announceChanges(through: $0) },
                latestSequence: { try? core.changeLogBounds().latest },
                onChange: onListenerChange)
        } catch {
            throw StoreError.storage(error, what)
        }
    }

    deinit {
        // Without close(): the writer drains by itself (StoreCore), the listener is told to end.
        listener.requestStop()
    }

    /// Starts the writer and listener threads; later calls do nothing.
    public func start() {
        core.start()
        listenerStarted.withLock { started in
            guard !started else { return }
            started = true
            listener.start()
        }
    }

    private let listenerStarted = Locked(false)

    /// Runs until ``close()`` has drained the writer.
    public func run() async {
        start()
        await core.run()
    }

    /// Commits what is queued, stops the writer and the listener and closes every connection;
    /// later calls throw ``StoreError/Code/closed``.
    public func close() async {
        start()
        await core.close()
        await listener.stop()
    }

    /// Unavailable while the LISTEN connection is down: this replica cannot hear the others'
    /// writes, and the listener failing to reconnect is how it learns the database is out of
    /// reach (see ``ChangeListener``). What `/healthz` answers, so haproxy takes the replica out.
    public var readiness: StoreReadiness { listener.readiness }

    /// Whether this replica's writer runs the timed work (time-driven changes at their instant,
    /// retention pruning); on by default, and the daemon gives it to the singleton lease holder.
    /// Correct either way (the writers serialize), but one replica doing it is enough.
    public func setSingletonDuties(active: Bool) {
        core.setSingletonDuties(active: active)
    }

    public func write(_ write: FactsWrite) async throws -> WriteOutcome {
        try await core.write(write)
    }

    public func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try await core.enqueue { .notification(notification, $0) }
    }

    /// Bulk load (see ``EntitlementStore/seed(_:)``); every replica's cache is cleared after.
    public func seed(_ writes: [FactsWrite]) async throws {
        try await core.enqueue { .seed(writes, $0) }
    }

    public var statistics: StoreStatistics { core.statistics }

    public func facts(userID: String) throws -> UserFacts {
        try core.facts(userID: userID)
    }

    public func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
        try core.keptAnswersOrFacts(userID: userID)
    }

    public func history(
        userID: String, productID: String?, pageSize: Int, pageToken: String?
    ) throws -> HistoryPage {
        try core.history(userID: userID, productID: productID, pageSize: pageSize, pageToken: pageToken)
    }

    /// NOTIFYs inside the writer's transaction: delivered at COMMIT, never for a rollback.
    private static func publish(_ db: PostgreSQL.Connection, replicaID: String, users: [String]?,
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
    private static func newReplicaID() -> String {
        String(UInt64.random(in: 1...UInt64.max), radix: 36)
    }
}
