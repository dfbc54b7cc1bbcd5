import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQLStore
import StorageCore
import Synchronization
import Testing
import TestSupport

/// How many round trips a batch of SubmitReceipt-like writes waits for on PostgreSQL: on a busy
/// machine each one costs two wake-ups, which is what bounds the writer (docs/storage.md).
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresWriteWaitsTests {
    /// A new user's receipt: one new chain of three transactions.
    private func receipt(_ round: Int, _ n: Int) -> FactsWrite {
        let chain = "c\(round)-\(n)"
        let transactions = (0..<3).map { Fixture.subscription("\(chain)-t\($0)", chain: chain) }
        return Fixture.receipt("user-\(round)-\(n)", transactions, sourceID: "receipt-\(round)-\(n)")
    }

    @Test func eachNewUsersWriteInABatchWaitsAtMostThreeTimes() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            try await withStarted(store) { store in
                // Statements prepare on first use and product names are remembered once committed.
                for warm in 0..<2 { _ = try await inOneBatch(store, (0..<3).map { receipt(warm, $0) }) }
                // What a batch of each size waits for, between batches; the difference is what
                // the 20 more writes add, whatever a batch waits for once (BEGIN, the lock, due
                // changes, the rollup, NOTIFY, COMMIT).
                var waits: [Int] = []
                for (round, writes) in [(8, 10), (9, 30)] {
                    let before = try await store.withWriterConnection { $0.waits }
                    let outcomes = try await inOneBatch(store, (0..<writes).map { receipt(round, $0) })
                    waits.append(try await store.withWriterConnection { $0.waits } - before)
                    #expect(outcomes.map(\.newTransactions) == Array(repeating: 3, count: writes))
                }
                // Three per write: the user and chain inserts; the change reads, with the
                // write's deferred inserts and the next write's lookups; the rollup's read of
                // its chain before COMMIT.
                let perTwentyWrites = waits[1] - waits[0]
                #expect(perTwentyWrites <= 60, "\(waits) waits for 10 and 30 writes")
                #expect(perTwentyWrites >= 20, "\(waits): the change reads need one per write")
            }
        }
    }

    /// Queues `writes` behind a writer held busy until all are queued, so it takes them as one
    /// batch; their outcomes in order.
    private func inOneBatch(_ store: PostgresEntitlementStore, _ writes: [FactsWrite]) async throws -> [WriteOutcome] {
        let executor = store.executor
        let holding = Atomic(false)
        let count = writes.count
        // Blocks the writer's own thread, not the cooperative pool.
        async let held: Void = store.withWriterConnection { _ in
            holding.store(true, ordering: .releasing)
            let deadline = Date().addingTimeInterval(30)
            while executor.pendingJobs < count, Date() < deadline { usleep(1_000) }
        }
        let deadline = Date().addingTimeInterval(30)
        while !holding.load(ordering: .acquiring), Date() < deadline { try await Task.sleep(for: .milliseconds(1)) }
        let outcomes = try await withThrowingTaskGroup(of: (Int, WriteOutcome).self) { group in
            for (index, write) in writes.enumerated() {
                group.addTask { (index, try await store.write(write)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        try await held
        return (0..<writes.count).map { outcomes[$0]! }
    }
}
