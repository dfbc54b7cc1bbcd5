import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import StorageTables
import Synchronization

/// The store over one SQL engine: the port's protocols written once against ``StorageEngine``,
/// with the writer thread, the read pool and the facts cache. Each engine's target builds one
/// (`EntitlementStore` on SQLite, `PostgresEntitlementStore` on PostgreSQL: names for
/// ``SQLStore`` of their connection type) and adds only how it opens its database.
///
/// An actor whose executor is the writer thread (``WriterExecutor``), so the compiler keeps the
/// write path's state to it: the ``Writer`` (the writer's connection, the facts and change
/// recorders, the open transaction, the batch and the timed work) is a non-Sendable property
/// only isolated code reaches, and isolated code runs only on that thread, where the engine's
/// blocking calls (fsync, network) stay off the cooperative pool.
///
/// Group commit: a write (``write(_:)``, ``apply(_:)``, the outbox's) is `nonisolated`: it
/// hands its write and a continuation to the executor's inbox and suspends. The executor runs
/// the actor's jobs in rounds; at the end of each, isolated code takes everything the inbox
/// holds as one batch, commits it as one transaction (one fsync) and resumes the callers, so the
/// writes that arrive while a batch commits share the next. A caller is answered only once its
/// write is durable and the read cache no longer holds anything older.
///
/// Why writes are not isolated methods: a call into the actor is a job on the writer thread,
/// and a caller suspended inside it resumes there too, then hops back to its own executor. That
/// second job per write kept the writer thread busy answering while the next writes arrived, so
/// batches split in two (measured, `entitlementd-bench writes`: 16 writers 14.4 -> 8.3 writes
/// per commit, 256 writers 200 -> 125); through the inbox a caller resumes straight on its own
/// executor, as it did when the writer thread had a plain queue. Work that needs the
/// connection to itself (a seed, due changes, a prune, watermarks, history revisions, tests'
/// access to the writer's connection) is isolated, and first commits what the inbox holds, so it
/// runs after the writes queued before it.
///
/// Reads are `nonisolated` and synchronous, for the event loops (CheckEntitlement answers
/// inline and must not hop): a hit in ``FactsCache`` costs a lock and a retain; a miss reads a
/// connection from ``ReaderPool`` and never waits for the writer. What they share with the
/// writer is Sendable and locked (the cache, the pool, the statistics).
///
/// Generic rather than existential, so each engine's calls are direct.
public actor SQLStore<DB: StorageEngine> {
    public typealias Configuration = StoreConfiguration

    /// The writer thread, as the actor's executor.
    package nonisolated let executor = WriterExecutor<WriteJob<DB>>()
    package nonisolated let cache: FactsCache
    package nonisolated let readers: ReaderPool<DB>
    package nonisolated let statisticsCounter = Locked(StoreStatistics())
    /// The write path; isolated to the actor (it is not Sendable).
    package let writer: Writer<DB>
    /// Whether this process runs the timed work (``setSingletonDuties(active:)``); the writer
    /// reads it at the end of every round.
    private nonisolated let singletonDuties = Locked(true)
    /// Open once ``close()`` has committed what was queued and closed the connections.
    private nonisolated let writerClosed = Latch()
    /// This database's change log id (the prefix of its change ids).
    package nonisolated let changeLogID: String
    package nonisolated let changeObservers: Locked<[@Sendable (Int64) -> Void]>
    /// Unix milliseconds, for the rows written outside the writer's batches.
    package nonisolated let clock: UnixClock
    /// Where the database is, for logs: a file's path, or a URL without its password.
    public nonisolated let location: String
    /// The other processes on the same database and how this one keeps in step with them
    /// (PostgreSQL's LISTEN connection and singleton lease); nil when one process owns it.
    package nonisolated let replicas: (any StoreReplicas)?
    /// Whether the writer can write the file now (shared with the writer, read by readiness).
    package nonisolated let writerHealth: WriterHealth

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Takes over `db` (opened, configured and migrated) as the writer's connection; the writer
    /// thread starts with ``start()``. `publish` runs inside each write transaction before COMMIT
    /// (PostgreSQL's NOTIFY to the other replicas); `replicas` makes what follows the others'
    /// writes, from the cache and change observers this store has just made.
    package init(writerConnection db: DB, readers: ReaderPool<DB>, location: String, configuration: StoreConfiguration,
         publish: Writer<DB>.Publish? = nil,
         replicas makeReplicas: ((ReplicaHooks) throws -> any StoreReplicas)? = nil) throws {
        self.location = location
        let writerHealth = WriterHealth()
        self.writerHealth = writerHealth
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
            writer = try Writer(db: db, recorder: recorder, changes: changes, changeLog: changeLog,
                                cache: cache, readers: readers, statistics: statisticsCounter,
                                singletonDuties: singletonDuties, executor: executor,
                                maxBatchSize: max(1, configuration.maxBatchSize), onCommit: configuration.onCommit,
                                publish: publish, health: writerHealth)
        } catch {
            throw StoreError.storage(error, "preparing the writer's savepoint")
        }
        do {
            try writer.backfillRollupIfPending()
        } catch {
            throw StoreError.storage(error, "filling the daily rollup from the stored facts")
        }
        do {
            _ = try recorder.rewriteListedRecords()
        } catch {
            throw StoreError.storage(error, "building the user_facts records of the users listed for it")
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
        // Without close(): nothing is queued (every queued call holds the store); the writer
        // closes its connections as it goes (``Writer/close()``), and the thread may end.
        executor.stop()
        replicas?.requestStop()
    }

    /// Starts the writer thread (and the replicas' listener); later calls do nothing. A
    /// dedicated thread, not a Task: the engine's calls block (fsync, network).
    public nonisolated func start() {
        // Weak: the thread must not keep a store nobody holds (its deinit closes and stops it).
        _ = executor.start { [weak self] in
            guard let self else { return nil }
            return self.assumeIsolated { $0.writer.endOfRound() }
        }
        replicas?.start()
    }

    /// Runs until ``close()`` has drained the writer.
    public nonisolated func run() async {
        start()
        await writerClosed.wait()
    }

    /// Commits what is queued, stops the replicas' threads and closes every connection (SQLite
    /// checkpoints its WAL); later calls throw ``StoreError/Code/closed``.
    ///
    /// The writer thread itself stays, idle, until the store is released: a call made after
    /// close is still a job of the actor's and needs its executor to run (and throw).
    public nonisolated func close() async {
        start()  // a store never started still drains (nothing) and closes its connection
        await closeWriter()
        await replicas?.stop()
    }

    private func closeWriter() {
        writer.close()
        writerClosed.open()
    }

    /// Queues the write `job` makes from a continuation for the writer's next batch and waits
    /// for its answer; nonisolated, so the caller resumes on its own executor (see ``SQLStore``).
    package nonisolated func submit<T>(_ job: (CheckedContinuation<T, any Error>) -> WriteJob<DB>) async throws
        -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !executor.submit(job(continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }

    /// What the writer has committed so far; cheap, for metrics.
    public nonisolated var statistics: StoreStatistics { statisticsCounter.withLock { $0 } }

    /// Whether calls can be served now; cheap, read by every `/readyz`. Not while the file or
    /// its disk fails writes (``WriterHealth``: cleared by the next commit or the writer's
    /// probe), nor, for a shared database, while this process cannot hear the others' writes or
    /// the database refuses writes (see ``StoreReplicas/readiness``).
    public nonisolated var readiness: StoreReadiness {
        if let reason = writerHealth.failureReason { return .unavailable(reason: reason) }
        return replicas?.readiness ?? .ready
    }

    /// Whether this process's writer runs the timed work (time-driven changes at their instant,
    /// retention pruning; see ``Writer/singletonDuties``); on by default, and the daemon gives it
    /// to the singleton lease holder. Correct either way (the writers serialize), but one
    /// replica doing it is enough. One process owns a SQLite file, so there `active: false` is
    /// accepted and ignored.
    public nonisolated func setSingletonDuties(active: Bool) {
        guard DB.isSharedByReplicas else { return }
        let wasActive = singletonDuties.withLock { duties in
            defer { duties = active }
            return duties
        }
        if !wasActive && active { executor.wake() }
    }

    /// The lease deciding which of the processes sharing this database runs the singleton
    /// duties, reporting to `onChange` from its thread; nil when the store has one process
    /// (SQLite), which holds the duties from startup.
    public nonisolated func makeSingletonLease(
        onChange: @escaping @Sendable (SingletonLeaseChange) -> Void
    ) -> (any SingletonDutiesLease)? {
        replicas?.makeSingletonLease(onChange: onChange)
    }

    // MARK: Writes

    /// Applies `notification`; returns once it is durable and visible to ``facts(userID:)``.
    ///
    /// It shares the writer's group commit with ``write(_:)``: a burst of notifications costs a
    /// few fsyncs, not one each.
    public nonisolated func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try await submit { .notification(notification, $0) }
    }

    /// Loads many writes fast (benchmarks, imports): large transactions, no per-write savepoint.
    ///
    /// Unlike ``write(_:)``, the first failure stops the load and earlier chunks stay committed;
    /// outcomes are not reported. The facts cache is emptied afterwards (every replica's, on a
    /// shared database).
    public func seed(_ writes: [FactsWrite]) throws {
        try writer.betweenBatches()
        try writer.seed(writes)
    }

    // MARK: Reads

    public nonisolated func facts(userID: String) throws -> UserFacts {
        let miss: FactsCache.Miss
        switch cache.lookup(userID) {
        case let .hit(facts): return facts
        case let .miss(missed): miss = missed
        }
        return try readAndCache(userID: userID, after: miss)
    }

    /// A cached user's answer memo, without retaining their facts' arrays; facts read and
    /// cached as ``facts(userID:)`` reads them on a miss.
    public nonisolated func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
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
    private nonisolated func readAndCache(userID: String, after miss: FactsCache.Miss) throws -> UserFacts {
        let facts = try read("reading facts", factsEpoch: cache.epoch) { try $0.facts(userID: userID) }
        cache.insert(facts, for: userID, after: miss)
        return facts
    }

    public nonisolated func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws
        -> HistoryPage {
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
    package nonisolated func read<T>(_ what: String, factsEpoch: UInt64? = nil, _ body: (StoreReader<DB>) throws -> T)
        throws -> T {
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
    /// chooses), and the writer's connection belongs to its thread. It first commits the writes
    /// queued before it, so it runs after them.
    package func withWriterConnection<T: Sendable>(_ body: (DB) throws -> T) throws -> T {
        try writer.betweenBatches()
        return try body(writer.db)
    }

    /// ``withWriterConnection(_:)`` with the engine's errors as ``StoreError``s.
    package func onWriter<T: Sendable>(_ what: String, _ body: (DB) throws -> T) throws -> T {
        try writer.betweenBatches()
        do {
            return try body(writer.db)
        } catch {
            throw StoreError.storage(error, what)
        }
    }
}
