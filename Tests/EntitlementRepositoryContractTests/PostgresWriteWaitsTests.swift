import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQLStore
import StorageCore
import StorageTables
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

    @Test func eachNewUsersWriteInABatchWaitsAtMostTwice() async throws {
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
                // Two per write: the user and chain inserts; the change reads, with the
                // write's deferred inserts and the next write's lookups. The rollup reads every
                // chain of the batch in one statement before COMMIT.
                // A batch's own waits differ by one or two between batches on a loaded machine
                // (41 seen in a fresh-clone run beside a build): slack for those, far below the
                // 20 a third wait per write would add.
                let perTwentyWrites = waits[1] - waits[0]
                #expect(perTwentyWrites <= 44, "\(waits) waits for 10 and 30 writes")
                #expect(perTwentyWrites >= 20, "\(waits): the change reads need one per write")
            }
        }
    }

    /// A notification about a chain nobody owns yet (as the benchmark's V1 ones): two
    /// transactions and a renewal info of one new chain.
    private func notification(_ round: Int, _ n: Int) -> NotificationWrite {
        let chain = "n\(round)-\(n)"
        return Fixture.notification(
            "notification-\(round)-\(n)",
            transactions: (0..<2).map { Fixture.subscription("\(chain)-t\($0)", chain: chain) },
            renewals: [RenewalInfo(originalTransactionID: chain, autoRenewStatus: true, signedDateMs: 1)])
    }

    @Test func aRunOfNewChainsNotificationsWaitsOnceForAllTheirFirstStages() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            try await withStarted(store) { store in
                // A full run prepares every lane's statements (each prepares on first use).
                let run = WriterLimits.notificationsAhead + 1
                for warm in 0..<2 {
                    _ = try await inOneBatch(store, (0..<run).map { notification(warm, $0) }) { try await $0.apply($1) }
                }
                var waits: [Int] = []
                for (round, notifications) in [(8, 10), (9, 30)] {
                    let before = try await store.withWriterConnection { $0.waits }
                    let outcomes = try await inOneBatch(store, (0..<notifications).map { notification(round, $0) }) {
                        try await $0.apply($1)
                    }
                    waits.append(try await store.withWriterConnection { $0.waits } - before)
                    #expect(outcomes.map(\.newTransactions) == Array(repeating: 2, count: notifications))
                }
                // The first notification's source mark and lookups go with every later one's
                // (they share no id), so 10 and 30 notifications wait alike: once for their
                // first stages, then the batch's own waits. Before, one each: 20 more.
                let perTwenty = waits[1] - waits[0]
                // Slack for a batch's own waits, as above.
                #expect(perTwenty <= 4, "\(waits) waits for 10 and 30 notifications")
                #expect(waits[1] < 20, "\(waits): 30 notifications should not wait once each")
            }
        }
    }

    /// Notifications in one run that share a chain, or a source id, still see each other: the
    /// later one's first stage goes after the earlier one's writes, never ahead of them. One
    /// whose first stage ran ahead finds a user's chain with its owner.
    @Test func notificationsSharingAChainOrASourceInOneBatchSeeEachOther() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            try await withStarted(store) { store in
                _ = try await store.write(Fixture.receipt("owner", [Fixture.subscription("o-t0", chain: "o")]))
                let renewalOfOwned = Fixture.notification(
                    "notification-owned", transactions: [Fixture.subscription("o-t1", chain: "o")])
                // Apple delivering the first one twice.
                let first = notification(1, 0), other = notification(1, 1), replay = first
                // A renewal of the first one's chain, under its own source id.
                let renewal = Fixture.notification(
                    "notification-1-renewal",
                    transactions: [Fixture.subscription("n1-0-t9", chain: "n1-0")], renewals: [])
                let outcomes = try await inOneBatch(store, [first, renewalOfOwned, other, replay, renewal]) {
                    try await $0.apply($1)
                }
                #expect(outcomes.map(\.duplicate) == [false, false, false, true, false])
                #expect(outcomes.map(\.newTransactions) == [2, 1, 2, 0, 1])
                #expect(outcomes.map(\.ownerUserIDs) == [[], ["owner"], [], [], []])
                let chains = try await store.withWriterConnection {
                    try $0.scalarInt64("SELECT COUNT(*) FROM chains WHERE original_transaction_id LIKE 'n1-%'")
                }
                #expect(chains == 2)
            }
        }
    }

    /// Queues `writes` behind a writer held busy until all are queued, so it takes them as one
    /// batch; their outcomes in order.
    private func inOneBatch(_ store: PostgresEntitlementStore, _ writes: [FactsWrite]) async throws -> [WriteOutcome] {
        try await inOneBatch(store, writes) { try await $0.write($1) }
    }

    /// ``inOneBatch(_:_:)`` for any kind of write `send` queues.
    private func inOneBatch<Write: Sendable, Outcome: Sendable>(
        _ store: PostgresEntitlementStore, _ writes: [Write],
        send: @escaping @Sendable (PostgresEntitlementStore, Write) async throws -> Outcome
    ) async throws -> [Outcome] {
        let executor = store.executor
        let holding = Atomic(false)
        let count = writes.count
        // Blocks the writer's own thread, not the cooperative pool. The writes reach the queue
        // through the pool, which other suites running beside this one can flood (10,000
        // concurrent writes took 80 s under load and once held them back past a 30 s wait, which
        // split the batch): so a long wait, and a split batch is named as such, not as a count.
        async let held: Int = store.withWriterConnection { _ in
            holding.store(true, ordering: .releasing)
            let deadline = Date().addingTimeInterval(180)
            while executor.pendingJobs < count, Date() < deadline { usleep(1_000) }
            return executor.pendingJobs
        }
        let deadline = Date().addingTimeInterval(30)
        while !holding.load(ordering: .acquiring), Date() < deadline { try await Task.sleep(for: .milliseconds(1)) }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            for (index, write) in writes.enumerated() {
                group.addTask { (index, try await send(store, write)) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let queued = try await held
        try #require(queued >= count, "only \(queued) of \(count) writes were queued when the writer let go")
        return (0..<writes.count).map { outcomes[$0]! }
    }
}
