import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import Synchronization

/// The engine-independent body of a store: the writer thread and its queue, the read pool and
/// the facts cache, and every operation of the port written once against ``StorageEngine``.
///
/// ``EntitlementStore`` (SQLite) and ``PostgresEntitlementStore`` each hold one and forward to
/// it; generic rather than existential, so each engine's calls are specialized and the SQLite
/// read path stays what it was.
final class StoreCore<DB: StorageEngine>: Sendable {
    let queue = WriteQueue<DB>()
    let cache: FactsCache
    let readers: ReaderPool<DB>
    let statisticsCounter = Locked(StoreStatistics())
    let writer: Writer<DB>
    private let writerStarted = Atomic<Bool>(false)
    /// This database's change log id (the prefix of its change ids).
    let changeLogID: String
    let changeObservers: Locked<[@Sendable (Int64) -> Void]>
    /// Unix milliseconds, for the rows written outside the writer's batches.
    let clock: UnixClock

    /// Takes over `db` (opened, configured and migrated) as the writer's connection; the writer
    /// thread starts with ``start()``. `publish` runs inside each write transaction before COMMIT
    /// (PostgreSQL's NOTIFY to the other replicas).
    init(writerConnection db: DB, readers: ReaderPool<DB>, configuration: EntitlementStore.Configuration,
         publish: Writer<DB>.Publish? = nil) throws {
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
    }

    deinit {
        // Without close(), still let the writer drain and close the connection when the store goes.
        queue.close()
        start()
    }

    /// Starts the writer thread; later calls do nothing. A dedicated thread, not a Task: the
    /// engine's calls block (fsync, network).
    func start() {
        guard !writerStarted.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let writer = self.writer
        ServiceThread.detach { writer.run() }
    }

    func run() async {
        start()
        await withCheckedContinuation { queue.waitUntilFinished($0) }
    }

    func close() async {
        queue.close()
        start()  // a store never started still drains (nothing) and closes its connection
        await withCheckedContinuation { queue.waitUntilFinished($0) }
    }

    /// Queues `job` made from a continuation and waits for the writer's answer.
    func enqueue<T>(_ job: (CheckedContinuation<T, any Error>) -> WriteJob<DB>) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            if !queue.enqueue(job(continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }

    var statistics: StoreStatistics { statisticsCounter.withLock { $0 } }

    /// Whether the writer runs its timed work (see ``Writer/singletonDuties``).
    func setSingletonDuties(active: Bool) {
        if writer.singletonDuties.exchange(active, ordering: .acquiringAndReleasing) != active, active {
            queue.wake()
        }
    }

    // MARK: Reads

    func facts(userID: String) throws -> UserFacts {
        let miss: FactsCache.Miss
        switch cache.lookup(userID) {
        case let .hit(facts): return facts
        case let .miss(missed): miss = missed
        }
        return try readAndCache(userID: userID, after: miss)
    }

    /// A cached user's answer memo, without retaining their facts' arrays; facts read and
    /// cached as ``facts(userID:)`` reads them on a miss.
    func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
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

    func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage {
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
    func read<T>(_ what: String, factsEpoch: UInt64? = nil, _ body: (StoreReader<DB>) throws -> T) throws -> T {
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
    func withWriterConnection(_ body: @escaping @Sendable (DB) throws -> Void) async throws {
        try await enqueue { .withConnection(body, $0) }
    }

    /// ``withWriterConnection(_:)`` with the engine's errors as ``StoreError``s.
    func onWriter(_ what: String, _ body: @escaping @Sendable (DB) throws -> Void) async throws {
        do {
            try await withWriterConnection(body)
        } catch {
            throw StoreError.storage(error, what)
        }
    }
}
