import Foundation
import ServiceRuntime
import SQLiteStore
import StorageCore

/// ``EntitlementStore/facts(userID:)`` latency for `distinct` random users of `u0..u(users-1)`,
/// read one at a time as one event-loop thread would. CheckEntitlement's h2load body always
/// asks for u0, a facts-cache hit, so only this shows what a miss costs. Passes:
/// 1. cold: the facts cache is empty, each read is SQLite (from disk unless the OS caches it);
/// 2. the same users again in the same order: a working set as big as `distinct`, which shows
///    whether the cache holds it;
/// 3. hot: the last quarter-capacity of them again, well inside the cache: hits;
/// 4. all again through a reopened store: cache misses with the pages in the OS cache;
/// 5. with `--write-every-ms N`: pass 4 again through another reopened store, beside a writer
///    that stores a new user (`r<time>-<n>`, added to the file) and waits N ms, over and over.
///    Every commit changes the WAL, and a WAL reader that sees a changed WAL drops its whole
///    page cache at its next read transaction, so its misses read the B-trees' root and
///    interior pages again; the read-only passes never show that.
/// Each pass also counts the read syscalls (pread) of the reading thread per read, from
/// /proc/thread-self/io: a load-independent figure beside the latencies.
struct ReadsCommand {
    let path: String
    let users: Int
    let distinct: Int
    /// Pause between the writes of pass 5, or nil: no pass 5.
    let writeEveryMs: Int?
    /// The store's configuration, with `--mmap-bytes` and `--reader-cache-kib` when given, so
    /// the read path's knobs can be compared on one data set.
    let configuration: EntitlementStore.Configuration

    init(_ options: Options) throws {
        path = try options.string("database")
        users = try options.int("users")
        distinct = try options.int("distinct")
        writeEveryMs = try options.optionalInt("write-every-ms")
        var configuration = EntitlementStore.Configuration()
        configuration.memoryMapBytes = try options.int(
            "mmap-bytes", default: configuration.memoryMapBytes, allowingZero: true)
        configuration.readerCacheKiB = try options.int("reader-cache-kib", default: configuration.readerCacheKiB)
        self.configuration = configuration
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: path) else { throw BenchError("no database at \(path)") }
        guard distinct <= users else { throw BenchError("--distinct must not exceed --users") }
        let picked = Array((0..<users).shuffled().prefix(distinct)).map { "u\($0)" }
        let hot = Array(picked.suffix(max(1, configuration.factsCacheCapacity / 4)))
        let store = try EntitlementStore(path: path, configuration: configuration)
        let cold = try pass(store, picked)
        let again = try pass(store, picked)
        let hits = try pass(store, hot)
        let rss = Measure.rssKiB()
        await store.close()
        let reopened = try EntitlementStore(path: path, configuration: configuration)
        let missed = try pass(reopened, picked)
        await reopened.close()
        var besideWriter: (pass: Pass, commits: Int)?
        if let writeEveryMs {
            let written = try EntitlementStore(path: path, configuration: configuration)
            besideWriter = try await passBesideWriter(written, picked, writeEveryMs: writeEveryMs)
            await written.close()
        }
        print("reads: \(distinct) distinct random users of \(users), one thread, "
              + "facts cache capacity \(configuration.factsCacheCapacity), reader page cache "
              + "\(configuration.readerCacheKiB) KiB, mmap \(configuration.memoryMapBytes) bytes")
        report("1 cold (facts-cache miss, file not yet read)", cold)
        report("2 same \(distinct) again, same order", again)
        report("3 hot: last \(hot.count) again (facts-cache hits)", hits)
        report("4 reopened store (facts-cache miss, file in OS cache)", missed)
        if let besideWriter, let writeEveryMs {
            report("5 as 4, beside a writer (a new user, then \(writeEveryMs) ms pause; "
                   + "\(besideWriter.commits) commits, one per "
                   + String(format: "%.0f", Double(distinct) / Double(max(besideWriter.commits, 1)))
                   + " reads)", besideWriter.pass)
        }
        print("reads: RSS \(Measure.mib(rss * 1024)) after pass 3; \(cold.transactions / distinct) "
              + "transactions per user; 'fast' = reads under \(Int(Self.hitBound * 1e6)) us: cache hits, "
              + "judged by latency")
    }

    /// Latency below which a read counts as a cache hit in the report: hits measure under 1 us,
    /// SQLite reads tens of microseconds.
    private static let hitBound = 5e-6

    private struct Pass {
        var latencies: [Double]
        var elapsed: Double
        var transactions: Int
        /// read/pread syscalls of the reading thread during the pass.
        var readSyscalls: Int
    }

    /// ``pass(_:_:)`` on a thread of its own (so the writer's task keeps the cooperative pool),
    /// while a task writes a new user and sleeps `writeEveryMs`, until the pass ends.
    private func passBesideWriter(_ store: EntitlementStore, _ picked: [String], writeEveryMs: Int)
        async throws -> (pass: Pass, commits: Int) {
        store.start()
        let runID = "r\(Int64(Date().timeIntervalSince1970 * 1000))"
        let writer = Task {
            var n = 0
            while !Task.isCancelled {
                let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
                _ = try await store.write(WritesCommand.newUser("\(runID)-\(n)", nowMs: nowMs))
                n += 1
                try? await Task.sleep(for: .milliseconds(writeEveryMs))
            }
        }
        let before = store.statistics.commits
        let result = await withCheckedContinuation { (done: CheckedContinuation<Result<Pass, any Error>, Never>) in
            ServiceThread.detach { done.resume(returning: Result { try self.pass(store, picked) }) }
        }
        let commits = store.statistics.commits - before
        writer.cancel()
        try await writer.value
        return (try result.get(), commits)
    }

    private func pass(_ store: EntitlementStore, _ picked: [String]) throws -> Pass {
        var latencies: [Double] = []
        latencies.reserveCapacity(picked.count)
        var transactions = 0
        let clock = ContinuousClock()
        let readsBefore = Measure.threadReadSyscalls()
        let start = clock.now
        for user in picked {
            let before = clock.now
            let facts = try store.facts(userID: user)
            latencies.append((clock.now - before).inSeconds)
            guard !facts.transactions.isEmpty else { throw BenchError("\(user) has no facts: not a seeded database?") }
            transactions += facts.transactions.count
        }
        let elapsed = (clock.now - start).inSeconds
        return Pass(latencies: latencies.sorted(), elapsed: elapsed, transactions: transactions,
                    readSyscalls: Measure.threadReadSyscalls() - readsBefore)
    }

    private func report(_ label: String, _ pass: Pass) {
        let fast = pass.latencies.prefix { $0 < Self.hitBound }.count
        print("reads: \(label): \(Measure.rate(pass.latencies.count, pass.elapsed)) reads/s, "
              + "p50 \(Measure.us(Measure.percentile(pass.latencies, 50))), "
              + "p99 \(Measure.us(Measure.percentile(pass.latencies, 99))), "
              + "max \(Measure.us(pass.latencies.last ?? .nan)), "
              + String(format: "fast %.1f%%, ", 100 * Double(fast) / Double(pass.latencies.count))
            + String(format: "%.2f read syscalls per read", Double(pass.readSyscalls) / Double(pass.latencies.count)))
    }
}
