import EntitlementStorage
import Foundation
import ServiceRuntime

/// ``EntitlementStore/facts(userID:)`` latency for `distinct` random users of `u0..u(users-1)`,
/// read one at a time as one event-loop thread would. CheckEntitlement's h2load body always
/// asks for u0, a facts-cache hit, so only this shows what a miss costs. Passes:
/// 1. cold: the facts cache is empty, each read is SQLite (from disk unless the OS caches it);
/// 2. the same users again in the same order: a working set as big as `distinct`, which shows
///    whether the cache holds it;
/// 3. hot: the last quarter-capacity of them again, well inside the cache: hits;
/// 4. all again through a reopened store: cache misses with the pages in the OS cache.
struct ReadsCommand {
    let path: String
    let users: Int
    let distinct: Int
    /// The store's configuration, with `--mmap-bytes` and `--reader-cache-kib` when given, so
    /// the read path's knobs can be compared on one data set.
    let configuration: EntitlementStore.Configuration

    init(_ options: Options) throws {
        path = try options.string("database")
        users = try options.int("users")
        distinct = try options.int("distinct")
        var configuration = EntitlementStore.Configuration()
        configuration.memoryMapBytes = try options.int("mmap-bytes", default: configuration.memoryMapBytes)
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
        print("reads: \(distinct) distinct random users of \(users), one thread, "
              + "facts cache capacity \(configuration.factsCacheCapacity), reader page cache "
              + "\(configuration.readerCacheKiB) KiB, mmap \(configuration.memoryMapBytes) bytes")
        report("1 cold (facts-cache miss, file not yet read)", cold)
        report("2 same \(distinct) again, same order", again)
        report("3 hot: last \(hot.count) again (facts-cache hits)", hits)
        report("4 reopened store (facts-cache miss, file in OS cache)", missed)
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
    }

    private func pass(_ store: EntitlementStore, _ picked: [String]) throws -> Pass {
        var latencies: [Double] = []
        latencies.reserveCapacity(picked.count)
        var transactions = 0
        let clock = ContinuousClock()
        let start = clock.now
        for user in picked {
            let before = clock.now
            let facts = try store.facts(userID: user)
            latencies.append((clock.now - before).inSeconds)
            guard !facts.transactions.isEmpty else { throw BenchError("\(user) has no facts: not a seeded database?") }
            transactions += facts.transactions.count
        }
        return Pass(latencies: latencies.sorted(), elapsed: (clock.now - start).inSeconds,
                    transactions: transactions)
    }

    private func report(_ label: String, _ pass: Pass) {
        let fast = pass.latencies.prefix { $0 < Self.hitBound }.count
        print("reads: \(label): \(Measure.rate(pass.latencies.count, pass.elapsed)) reads/s, "
              + "p50 \(Measure.us(Measure.percentile(pass.latencies, 50))), "
              + "p99 \(Measure.us(Measure.percentile(pass.latencies, 99))), "
              + "max \(Measure.us(pass.latencies.last ?? .nan)), "
              + String(format: "fast %.1f%%", 100 * Double(fast) / Double(pass.latencies.count)))
    }
}
