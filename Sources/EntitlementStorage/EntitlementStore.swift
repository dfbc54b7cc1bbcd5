import EntitlementPorts
import Entitlements
import SQLite
import ServiceRuntime
import Synchronization

/// The SQLite ``EntitlementRepository``: one database file, one writer thread, cached reads.
///
/// Writes go to a dedicated writer thread (``Writer``) that group-commits them with
/// synchronous=FULL and answers each caller only once its write is durable and the read cache
/// no longer holds anything older. Reads are synchronous, for event-loop
/// threads: a hit in ``FactsCache`` costs a lock and a retain; a miss reads a WAL connection
/// from ``ReaderPool`` and never waits for the writer.
///
/// A final class, not an actor: the writer thread serializes the writes (its SQLite calls block
/// and must stay off the cooperative pool, and group commit needs its queue), reads are
/// synchronous for the event loops, and the rest is immutable; an actor would add only a hop.
public final class EntitlementStore: EntitlementRepository, CoreBackedStore {
    /// Tuning knobs; the defaults suit the service.
    public struct Configuration: Sendable {
        public var transferPolicy: TransferPolicy
        /// Users whose facts are kept in memory (measured ~2.2 KiB each with 3 transactions);
        /// 0 disables the cache.
        public var factsCacheCapacity: Int
        /// How long a connection waits for another process's lock before failing.
        public var busyTimeoutMs: Int32
        /// The most writes committed in one transaction; bounds a batch's latency.
        public var maxBatchSize: Int
        /// The writer connection's page cache once the file is past 1 GiB (4 MiB at most below
        /// that, see ``WriterCacheSize``); larger speeds up bulk seeding.
        public var writerCacheKiB: Int
        /// Each read connection's page cache (one connection per concurrently reading thread):
        /// cache misses read B-tree pages from here before going to the OS.
        public var readerCacheKiB: Int
        /// Bytes of the file each read connection reads through mmap instead of read(); 0
        /// disables. See ``defaultMemoryMapBytes`` for why it is on and what it costs.
        public var memoryMapBytes: Int
        /// Unix milliseconds now (default: the wall clock); injectable so tests can pin times.
        public var clock: UnixClock
        /// Told after each committed batch: how many writes it carried and how long
        /// BEGIN..COMMIT took (fsync included). For metrics; runs on the writer thread.
        public var onCommit: (@Sendable (_ batchSize: Int, _ seconds: Double) -> Void)?
        /// The catalog CheckEntitlement answers with: the change log records the entitlements
        /// it would answer (product types, entitlement ids, non-renewing durations).
        public var catalog: Catalog = .empty
        /// How long a change stays in the change log before the background prune deletes it;
        /// `nil` keeps every change (--change-retention).
        public var changeRetentionMs: Int64? = 30 * 86_400_000
        /// Metrics hooks of the change log.
        public var changeLogReporting = ChangeLogReporting()
        /// Whether the writer wakes by itself at each due instant to write time-driven changes.
        /// Tests that move an injected clock and call ``EntitlementStore/recordDueChanges()``
        /// turn it off so the writer never races them; every batch still writes what is due first.
        public var dueTimer = true

        /// 2 GiB, SQLite's own ceiling on Linux: the whole file up to that size.
        ///
        /// Why on: a facts-cache miss descends a B-tree whose pages are mostly in the OS page
        /// cache but not the connection's; through read() each page costs a pread (~1.3 per
        /// miss on the 1M x 3 set, more under writes, since a WAL reader drops its page cache
        /// when the WAL changes), through the map a memory access (miss p50 ~11 -> ~7.5 us).
        /// The costs: mapped pages the reader touched count towards the process's RSS (as
        /// shared file pages, `RssFile`, which the kernel reclaims like any page cache; the
        /// memory used is the same page cache read() fills), and a disk I/O error while
        /// reading a mapped page kills the process with SIGBUS instead of failing that read.
        /// Writes never go through the map. `--database-mmap-mib 0` turns it off.
        public static let defaultMemoryMapBytes = 2048 << 20

        public init(
            transferPolicy: TransferPolicy = .transfer, factsCacheCapacity: Int = 100_000,
            busyTimeoutMs: Int32 = 5_000, maxBatchSize: Int = 512, writerCacheKiB: Int = 32_768,
            readerCacheKiB: Int = 8_192, memoryMapBytes: Int = defaultMemoryMapBytes,
            clock: UnixClock? = nil,
            onCommit: (@Sendable (_ batchSize: Int, _ seconds: Double) -> Void)? = nil
        ) {
            self.onCommit = onCommit
            self.transferPolicy = transferPolicy
            self.factsCacheCapacity = factsCacheCapacity
            self.busyTimeoutMs = busyTimeoutMs
            self.maxBatchSize = maxBatchSize
            self.writerCacheKiB = writerCacheKiB
            self.readerCacheKiB = readerCacheKiB
            self.memoryMapBytes = memoryMapBytes
            self.clock = clock ?? WallClock.unixMilliseconds
        }
    }

    public let path: String
    let core: StoreCore<Connection>
    /// The change log, outbox, watermarks and revisions (``CoreBackedStore``).
    public var coreOperations: StoreCoreOperations { StoreCoreOperations(core) }

    public convenience init(path: String, transferPolicy: TransferPolicy = .transfer) throws {
        try self.init(path: path, configuration: Configuration(transferPolicy: transferPolicy))
    }

    /// Opens (creating if needed) and migrates the database; the writer thread starts with
    /// ``start()`` or ``run()``, and writes queue until then. Reads work at once.
    ///
    /// Throws ``StoreError/Code/schemaTooNew`` if a newer entitlementd wrote the file.
    public init(path: String, configuration: Configuration) throws {
        self.path = path
        let db = try Self.openWriter(path: path, configuration: configuration)
        let readers = ReaderPool { try Self.openReader(path: path, configuration: configuration) }
        core = try StoreCore(writerConnection: db, readers: readers, configuration: configuration)
    }

    /// Starts the writer thread; later calls do nothing.
    ///
    /// A dedicated thread, not a Task: SQLite blocks in fsync for milliseconds.
    public func start() { core.start() }

    /// Runs the writer until ``close()`` has drained it and closed the file.
    public func run() async { await core.run() }

    /// Stores `write`; returns once it is durable (fsynced) and visible to ``facts(userID:)``.
    public func write(_ write: FactsWrite) async throws -> WriteOutcome {
        try await core.write(write)
    }

    /// Applies `notification`; returns once it is durable and visible to ``facts(userID:)``.
    ///
    /// It shares the writer's group commit with ``write(_:)``: a burst of notifications costs a
    /// few fsyncs, not one each.
    public func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try await core.enqueue { .notification(notification, $0) }
    }

    /// What the writer has committed so far; cheap, for metrics.
    public var statistics: StoreStatistics { core.statistics }

    /// Loads many writes fast (benchmarks, imports): large transactions, no per-write savepoint.
    ///
    /// Unlike ``write(_:)``, the first failure stops the load and earlier chunks stay committed;
    /// outcomes are not reported. The facts cache is emptied afterwards.
    public func seed(_ writes: [FactsWrite]) async throws {
        try await core.enqueue { .seed(writes, $0) }
    }

    /// Commits what is queued, closes every connection (checkpointing the WAL) and stops the
    /// writer; later calls throw ``StoreError/Code/closed``.
    public func close() async { await core.close() }

    /// One process owns a SQLite file, so its timed work (due changes, pruning, the baseline)
    /// always runs: `active: false` is accepted and ignored, for symmetry with
    /// ``PostgresEntitlementStore/setSingletonDuties(active:)``.
    public func setSingletonDuties(active: Bool) {}

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
}
