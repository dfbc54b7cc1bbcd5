import EntitlementPorts
import Entitlements
import Foundation
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import Synchronization
import TestSupport
import XCTest

/// A batch runs without savepoints unless one of its writes fails on its own account; then it
/// is rolled back whole and runs again with a savepoint per write, so the failed write is undone
/// alone and the others commit, exactly as if every write had had its savepoint from the start.
final class BatchSavepointTests: StoreTestCase {
    func testABatchWithoutFailuresRunsNoSavepointAndAFailedWriteIsUndoneAlone() async throws {
        let store = try openStore(policy: .reject)
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("s1", chain: "shared")]))
        let good = { (n: Int) in
            Fixture.receipt("user\(n)", [Fixture.subscription("t\(n)", chain: "c\(n)")], sourceID: "r\(n)")
        }

        let clean = try await savepointRuns(store) { try await self.inOneBatch(store, (0..<5).map(good)) }
        XCTAssertEqual(clean.runs, 0, "a batch without failures needs no savepoint")
        XCTAssertEqual(clean.results.map { (try? $0.get())?.newTransactions }, [1, 1, 1, 1, 1])

        // Bob's write creates his user, marks its receipt processed and a chain of his, then
        // meets alice's chain under the reject policy: all of it must go, and only it.
        let bob = Fixture.receipt("bob", [Fixture.subscription("b1", chain: "bobs"),
                                          Fixture.subscription("s2", chain: "shared")], sourceID: "r-bob")
        let commitsBefore = store.statistics.commits
        let mixed = try await savepointRuns(store) {
            try await self.inOneBatch(store, [good(5), good(6), bob, good(7), good(8)])
        }
        XCTAssertEqual(mixed.runs, 5, "the batch runs again with a savepoint per write")
        XCTAssertEqual(store.statistics.commits - commitsBefore, 1)
        for index in [0, 1, 3, 4] { XCTAssertEqual(try mixed.results[index].get().newTransactions, 1) }
        guard case let .failure(error as StoreError) = mixed.results[2] else {
            return XCTFail("bob's write must fail with the ownership conflict, got \(mixed.results[2])")
        }
        XCTAssertEqual(error.code, .ownershipConflict)
        XCTAssertEqual(try store.facts(userID: "bob").transactions.count, 0)
        XCTAssertEqual(try store.facts(userID: "alice").transactions.map(\.transactionID), ["s1"])
        for n in 5...8 { XCTAssertEqual(try store.facts(userID: "user\(n)").transactions.count, 1) }
        // Nothing of bob's stayed: his receipt is not marked processed and "bobs" is free.
        let retried = try await store.write(Fixture.receipt("bob", [Fixture.subscription("b1", chain: "bobs")],
                                                            sourceID: "r-bob"))
        XCTAssertFalse(retried.alreadyProcessed)
        XCTAssertEqual(retried.newTransactions, 1)
        await store.close()
    }

    /// Runs of the writes' savepoint while `body` ran.
    private func savepointRuns<T>(_ store: EntitlementStore, _ body: () async throws -> T) async throws
        -> (runs: Int, results: T) {
        let before = try await runs(of: "SAVEPOINT fact_write", in: store)
        let results = try await body()
        return (try await runs(of: "SAVEPOINT fact_write", in: store) - before, results)
    }

    private func runs(of sql: String, in store: EntitlementStore) async throws -> Int {
        let runs = Mutex(0)
        try await store.withWriterConnection { db in
            let count = try db.prepare(sql).runs
            runs.withLock { $0 = count }
        }
        return runs.withLock { $0 }
    }

    /// Queues `writes` behind a writer held busy until all are queued, so it takes them as one
    /// batch; their results in order.
    private func inOneBatch(_ store: EntitlementStore, _ writes: [FactsWrite]) async throws
        -> [Result<WriteOutcome, any Error>] {
        let executor = store.executor
        let holding = Atomic(false)
        let count = writes.count
        async let held: Void = store.withWriterConnection { _ in
            holding.store(true, ordering: .releasing)
            let deadline = Date().addingTimeInterval(30)
            while executor.pendingJobs < count, Date() < deadline { usleep(1_000) }
        }
        try await eventually("the writer held") { holding.load(ordering: .acquiring) }
        let results = await withTaskGroup(of: (Int, Result<WriteOutcome, any Error>).self) { group in
            for (index, write) in writes.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await store.write(write)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results: [(Int, Result<WriteOutcome, any Error>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        try await held
        return results
    }
}
