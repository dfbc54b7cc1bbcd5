import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import Synchronization

/// The store over one SQL engine: the port's protocols written once against ``StorageEngine``,
/// with the writer thread and its queue, the read pool and the facts cache. Each engine's
/// target builds one (`EntitlementStore` on SQLite, `PostgresEntitlementStore` on PostgreSQL:
/// names for ``SQLStore`` of their connection type) and adds only how it opens its database.
///
/// Writes go to a dedicated writer thread (``Writer``) that group-commits them and answers each
/// caller only once its write is durable and the read cache no longer holds anything older.
/// Reads are synchronous, for event-loop threads: a hit in ``FactsCache`` costs a lock and a
/// retain; a miss reads a connection from ``ReaderPool`` and never waits for the writer.
///
/// A final class, not an actor: the writer thread serializes the writes (the engine's calls
/// block and must stay off the cooperative pool, and group commit needs its queue), reads are
/// synchronous for the event loops, and the rest is immutable; an actor would add only a hop.
/// Generic rather than existential, so each engine's calls are direct.
public final class SQLStore<DB: StorageEngine>: Sendable {
    public typealias Configuration = StoreConfiguration

    package let queue = WriteQueue<DB>()
    package let cache: FactsCache
    package let readers: ReaderPool<DB>
    package let statisticsCounter = Locked(StoreStatistics())
    package let writer: Writer<DB>
    private let writerStarted = Atomic<Bool>(false)
    /// This database's change log id (the prefix of its change ids).
    package let changeLogID: String
    package let changeObservers: Locked<[@Sendable (Int64) -> Void]>
    /// Unix milliseconds, for the rows written outside the writer's batches.
    package let clock: UnixClock
    /// Where the database is, for logs: a file's path, or a URL without its password.
    public let location: String
    /// The other processes on the same database and how this one keeps in step with them
    /// (PostgreSQL's LISTEN connection and singleton lease); nil when one process owns it.
    package let replicas: (any StoreReplicas)?

    /// Takes over `db` (opened, configured and migrated) as the writer's connection; the writer
    /// thread starts with ``start()``. `publish` runs inside each write transaction before COMMIT
    /// (PostgreSQL's NOTIFY to the other replicas); `replicas` makes what follows the others'
    /// writes, from the cache and change observers this store has just made.
    package init(writerConnection db: DB, readers: ReaderPool<DB>, location: String, configuration: StoreConfiguration,
         publish: Writer<DB>.Publish? = nil,
         replicas makeReplicas: ((ReplicaHooks) throws -> any StoreReplicas)? = nil) throws {
        self.location = location
        cache = FactsCache(capacity: configuration.factsCacheCapacity)
        clock = configuration.clock
        self.readers = readers
        let recorder: FactsRecorder<DB>
        let changes: ChangeRecorder<DB>
        do {
            recorder = try FactsRecorder(db: db, transferPolicy: configuration.transferPolicy,
                                         clock: configuration.clock)
            changes = try ChangeRecorder(db: db, catalog: configuration.catalog)
        } catch {
            throw StoreError.storage(error, "preparing the writer's statements, reading the change log id")
        }
        changeLogID = changes.logID
        let changeLog = ChangeLogSettings(clock: configuration.clock, retentionMs: configuration.changeRetentionMs,
                                          dueTimer: configuration.dueTimer, reporting: configuration.changeLogReporting)
        changeObservers = changeLog.observers
        do {
            writer = try Writer(db: db, recorder: recorder, changes: changes, changeLog: changeLog, queue: queue,
                                cache: cache, readers: readers, statistics: statisticsCounter,
                                maxBatchSize: max(1, configuration.maxBatchSize), onCommit: configuration.onCommit,
                                publish: publish)
        } catch {
            throw StoreError.storage(error, "preparing the writer's savepoint")
        }
        let observers = changeObservers
        replicas = try makeReplicas?(ReplicaHooks(
            cache: cache,
            announce: { latest in for observer in observers.withLock({ $0 }) { observer(latest) } },
            latestSequence: {
                try? readers.withReader { reader in
                    try reader.prepare(forFactsEpoch: nil)
                    return try reader.changeLogBounds().latest
                }
            }))
    }

    deinit {
        // Without close(), still let the writer drain and close the connection when the store
        // goes, and tell the replicas' threads to end.
        queue.close()
        startWriter()
        replicas?.requestStop()
    }

    /// Starts the writer thread (and the replicas' listener); later calls do nothing. A
    /// dedicated thread, not a Task: the engine's calls block (fsync, network).
    public func start() {
        startWriter()
        replicas?.start()
    }

    private func startWriter() {
        guard !writerStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let writer = self.writer
        ServiceThread.detach { writer.run() }
    }

    /// Runs until ``close()`` has drained the writer.
    public func run() async {
        start()
        await withCheckedContinuation { queue.waitUntilFinished($0) }
    }

    /// Commits what is queued, stops the threads and closes every connection (SQLite
    /// checkpoints its WAL); later calls throw ``StoreError/Code/closed``.
    public func close() async {
        queue.close()
        start()  // a store never started still drains (nothing) and closes its connection
        await withCheckedContinuation { queue.waitUntilFinished($0) }
        await replicas?.stop()
    }

    /// Queues `job` made from a continuation and waits for the writer's answer.
    package func enqueue<T>(_ job: (CheckedContinuation<T, any Error>) -> WriteJob<DB>) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !queue.enqueue(job(continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }

    /// What the writer has committed so far; cheap, for metrics.
    public var statistics: StoreStatistics { statisticsCounter.withLock { $0 } }

    /// Whether calls can be served now; cheap, read by every `/healthz`. A file is always
    /// ready (its faults fail the calls that meet them); a shared database is not while this
    /// process cannot hear the others' writes (see ``StoreReplicas/readiness``).
    public var readiness: StoreReadiness { replicas?.readiness ?? .ready }

    /// Whether this process's writer runs the timed work (time-driven changes at their instant,
    /// retention pruning; see ``Writer/singletonDuties``); on by default, and the daemon gives it
    /// to the singleton lease holder. Correct either way (the writers serialize), but one
    /// replica doing it is enough. One process owns a SQLite file, so there `active: false` is
    /// accepted and ignored.
    public func setSingletonDuties(active: Bool) {
        guard DB.isSharedByReplicas else { return }
        if writer.singletonDuties.exchange(active, ordering: .acquiringAndReleasing) != active, active {
            queue.wake()
        }
    }

    /// The lease deciding which of the processes sharing this database runs the singleton
    /// duties, reporting to `onChange` from its thread; nil when the store has one process
    /// (SQLite), which holds the duties from startup.
    public func makeSingletonLease(
        onChange: @escaping @Sendable (SingletonLeaseChange) -> Void
    ) -> (any SingletonDutiesLease)? {
        replicas?.makeSingletonLease(onChange: onChange)
    }

    // MARK: Writes

    /// Applies `notification`; returns once it is durable and visible to ``facts(userID:)``.
    ///
    /// It shares the writer's group commit with ``write(_:)``: a burst of notifications costs a
    /// few fsyncs, not one each.
    public func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try await enqueue { .notification(notification, $0) }
    }

    /// Loads many writes fast (benchmarks, imports): large transactions, no per-write savepoint.
    ///
    /// Unlike ``write(_:)``, the first failure stops the load and earlier chunks stay committed;
    /// outcomes are not reported. The facts cache is emptied afterwards (every replica's, on a
    /// shared database).
    public func seed(_ writes: [FactsWrite]) async throws {
        try await enqueue { .seed(writes, $0) }
    }

    // MARK: Reads

    public func facts(userID: String) throws -> UserFacts {
        let miss: FactsCache.Miss
        switch cache.lookup(userID) {
        case let .hit(facts): return facts
        case let .miss(missed): miss = missed
        }
        return try readAndCache(userID: userID, after: miss)
    }

    /// A cached user's answer memo, without retaining their facts' arrays; facts read and
    /// cached as ``facts(userID:)`` reads them on a miss.
    public func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
        let miss: FactsCache.Miss
        switch cache.lookupMemo(userID) {
        case let .hit(memo?): return .kept(memo)
        case .hit(nil): return .facts(try facts(userID: userID))
        case let .miss(missed): miss = missed
        }
        return .facts(try readAndCache(userID: userID, after: miss))
    }

    /// Reads the facts of a user the cache missed (in the snapshot facts reads hold, see
    /// ``StoreReader/prepare(forFactsEpoch:)``; the epoch is read after the miss) and caches them.
    private func readAndCache(userID: String, after miss: FactsCache.Miss) throws -> UserFacts {
        let facts = try read("reading facts", factsEpoch: cache.epoch) { try $0.facts(userID: userID) }
        cache.insert(facts, for: userID, after: miss)
        return facts
    }

    public func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage {
        let cursor = try HistoryCursor.parse(pageToken: pageToken)
        let limit = HistoryPage.clampedPageSize(pageSize)
        // One extra row tells whether another page exists, so the last page has no token.
        let events = try read("reading history") {
            try $0.history(userID: userID, productID: productID, before: cursor, limit: limit + 1)
        }
        return HistoryPage(newestFirst: events, limit: limit)
    }

    /// Runs `body` on a read connection with the engine's errors as ``StoreError``s.
    /// `factsEpoch`: for a facts read, the cache's epoch read after its lookup missed (see
    /// ``StoreReader/prepare(forFactsEpoch:)``); nil for every other read.
    package func read<T>(_ what: String, factsEpoch: UInt64? = nil, _ body: (StoreReader<DB>) throws -> T) throws -> T {
        try readers.withReader { reader in
            do {
                try reader.prepare(forFactsEpoch: factsEpoch)
                return try body(reader)
            } catch let failure as any SQLFailure where DB.isSharedByReplicas && failure.isTransient {
                // A pooled server connection that dropped (a restart, a failover) reconnects on
                // its next use: one more try spares the caller an UNAVAILABLE.
                do {
                    return try body(reader)
                } catch {
                    throw StoreError.storage(error, what)
                }
            } catch {
                throw StoreError.storage(error, what)
            }
        }
    }

    /// Runs `body` on the writer thread, between batches, with the writer's own connection.
    ///
    /// Also the seam for tests that provoke storage faults: some exist only per connection
    /// (e.g. `PRAGMA max_page_count`, which makes the database "fill up" at a size the test
    /// chooses), and the writer's connection belongs to its thread. Queued like a write, so it
    /// runs after what was queued before it.
    package func withWriterConnection(_ body: @escaping @Sendable (DB) throws -> Void) async throws {
        try await enqueue { .withConnection(body, $0) }
    }

    /// ``withWriterConnection(_:)`` with the engine's errors as ``StoreError``s.
    package func onWriter(_ what: String, _ body: @escaping @Sendable (DB) throws -> Void) async throws {
        do {
            try await withWriterConnection(body)
        } catch {
            throw StoreError.storage(error, what)
        }
    }
}
