import EntitlementPorts

/// A store the daemon runs, whichever engine: the port's protocols plus lifecycle, statistics
/// and the singleton-duties switch. ``SQLStore`` conforms for every engine; the service above
/// sees only the port's protocols.
public protocol StoreBackend: EntitlementRepository, EntitlementChangeLog, EntitlementChangeUpkeep, WebhookOutbox,
    ReconciliationProgress, TransactionHistoryRevisions, AccountTokens, GrantStore, DailyFiguresReading,
    CustomerLookup, ConsumptionAnswers, AnyObject {
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
    func makeSingletonLease(onChange: @escaping @Sendable (SingletonLeaseChange) -> Void)
        -> (any SingletonDutiesLease)?
}

extension SQLStore: StoreBackend {}

/// What the owner of a singleton lease learns, in order; `acquired` and `lost`/`released`
/// alternate.
public enum SingletonLeaseChange: Sendable, Equatable {
    case acquired
    /// The session holding the lock broke (or no longer answers); duties must stop.
    case lost(reason: String)
    /// ``SingletonDutiesLease/stop()`` released it.
    case released
    /// Trying to take the lease failed (the database is unreachable); reported once per
    /// outage, not on every retry.
    case unavailable(reason: String)
}

/// "Exactly one of the processes sharing a database runs this": PostgreSQL's advisory-lock
/// lease, as the daemon drives it.
public protocol SingletonDutiesLease: Sendable {
    /// Whether this process holds the lease now.
    var isHeld: Bool { get }
    /// Tries to take the lease and keeps it until ``stop()``, reporting each change.
    func run() async
    /// Releases the lease (if held) and ends ``run()``.
    func stop() async
}

/// What a store on a database other processes write too keeps running beside its writer: on
/// PostgreSQL, the LISTEN connection that drops other replicas' changed users from the cache,
/// and the singleton lease. A SQLite file has one process and none.
package protocol StoreReplicas: Sendable {
    /// Unavailable while this process cannot hear the others' writes.
    var readiness: StoreReadiness { get }
    /// Starts the threads; later calls do nothing.
    func start()
    /// Stops the threads and closes their connections.
    func stop() async
    /// Asks the threads to end without waiting (the store is going away without ``stop()``).
    func requestStop()
    /// A singleton lease on a connection of its own.
    func makeSingletonLease(onChange: @escaping @Sendable (SingletonLeaseChange) -> Void) -> any SingletonDutiesLease
}

/// What a store hands its ``StoreReplicas`` when it makes them: the cache to drop other
/// replicas' users from, how to tell change observers of their commits, and the newest change
/// sequence committed.
package struct ReplicaHooks: Sendable {
    package let cache: FactsCache
    package let announce: @Sendable (Int64) -> Void
    package let latestSequence: @Sendable () -> Int64?
}
