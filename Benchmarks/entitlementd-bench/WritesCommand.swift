import EntitlementPorts
import Entitlements
import Foundation
import SQLiteStore
import StorageCore

/// Acknowledged-write throughput: `count` ``EntitlementStore/write(_:)`` calls, each a new user
/// with one new transaction, from `writers` concurrent tasks. What it shows is group commit:
/// one writer pays an fsync per write; many share a commit (commits and writes per commit come
/// from ``EntitlementStore/statistics``).
struct WritesCommand {
    let path: String
    let writers: Int
    let count: Int

    init(_ options: Options) throws {
        path = try options.string("database")
        writers = try options.int("writers")
        count = try options.int("count")
    }

    func run() async throws {
        let store = try EntitlementStore(path: path, configuration: .init())
        store.start()
        // A run id keeps users and transaction ids new when the same file is reused.
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let runID = "w\(nowMs)"
        let before = store.statistics
        let (latencies, elapsed) = try await Measure.time {
            try await withThrowingTaskGroup(of: [Double].self) { group in
                for writer in 0..<writers {
                    // Writer w takes writes w, w + writers, ...: `count` in all.
                    let mine = Array(stride(from: writer, to: count, by: writers))
                    group.addTask {
                        var seconds: [Double] = []
                        seconds.reserveCapacity(mine.count)
                        for n in mine {
                            let write = Self.newUser("\(runID)-\(n)", nowMs: nowMs)
                            let (outcome, took) = try await Measure.time { try await store.write(write) }
                            guard outcome.newTransactions == 1 else {
                                throw BenchError("write \(n) stored \(outcome.newTransactions) transactions, want 1")
                            }
                            seconds.append(took)
                        }
                        return seconds
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }.sorted()
            }
        }
        let after = store.statistics
        await store.close()
        let commits = after.commits - before.commits
        print("writes: \(writers) writers, \(count) acknowledged writes in " + String(format: "%.2f s", elapsed)
              + ": \(Measure.rate(count, elapsed)) writes/s")
        print("writes: latency p50 \(Measure.ms(Measure.percentile(latencies, 50))), "
              + "p99 \(Measure.ms(Measure.percentile(latencies, 99))), "
              + "max \(Measure.ms(latencies.last ?? .nan))")
        print("writes: \(commits) commits, "
              + String(format: "%.1f", Double(after.appliedWrites - before.appliedWrites) / Double(max(commits, 1)))
              + " writes per commit")
    }

    /// One receipt's worth: a new user with one active monthly transaction.
    static func newUser(_ id: String, nowMs: Int64) -> FactsWrite {
        let transaction = Transaction(
            transactionID: id, originalTransactionID: id, productID: BenchData.product,
            purchaseDateMs: nowMs, expiresDateMs: nowMs + 30 * BenchData.day,
            subscriptionGroupIdentifier: BenchData.group, inAppOwnershipType: "PURCHASED")
        return FactsWrite(userID: id, transactions: [transaction], source: .receipt, sourceID: "receipt-\(id)")
    }
}
