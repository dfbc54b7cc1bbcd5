import EntitlementPorts
import Entitlements
import ServiceRuntime

/// A store's tuning knobs, whichever engine; the defaults suit the service.
public struct StoreConfiguration: Sendable {
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
    /// Tests that move an injected clock and call ``SQLStore/recordDueChanges()``
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
