import EntitlementPorts
import Entitlements
import PostgreSQLStore
import StorageCore
import Testing
import TestSupport

/// On PostgreSQL too the writer hands the facts cache what it committed instead of dropping it
/// (the read after a SubmitReceipt is then a hit, not two round trips on a pooled connection),
/// unless another replica's invalidation came in meanwhile: cached facts must equal what the
/// database holds, on every replica, whatever the writes did.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresCacheRefreshTests {
    /// Sends the writes at once, so they share batches.
    private func send(_ writes: RandomWrites.Round, to stores: [PostgresEntitlementStore]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, receipt) in writes.receipts.enumerated() {
                group.addTask { _ = try await stores[index % stores.count].write(receipt) }
            }
            for (index, notification) in writes.notifications.enumerated() {
                group.addTask { _ = try await stores[(index + 1) % stores.count].apply(notification) }
            }
            try await group.waitForAll()
        }
    }

    @Test func aWritersUsersAreCachedWithWhatTheDatabaseHolds() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url, poolSize: 2)
            // No cache: every read goes to the database.
            let database = try await PostgresTestServer.open(url, poolSize: 1,
                                                             configuration: .init(factsCacheCapacity: 0))
            database.start()
            try await withStarted(store) { store in
                var rounds = RandomWrites(seed: 21, chains: 8, maxChainsPerWrite: 2, maxTransactionsPerChain: 2)
                for round in 0..<30 {
                    let writes = rounds.next(round)
                    try await send(writes, to: [store])
                    for write in writes.receipts {
                        guard case .hit = store.cache.lookup(write.userID) else {
                            Issue.record("round \(round): \(write.userID) not cached after its write")
                            return
                        }
                    }
                    for user in RandomWrites.users {
                        #expect(try store.facts(userID: user) == database.facts(userID: user), "round \(round)")
                    }
                }
            }
            await database.close()
        }
    }

    /// Two replicas write the same users at once: whichever commits last, each replica's
    /// cache settles on what the database holds (a refresh that lost the race to the other's
    /// invalidation would keep stale facts for good).
    @Test func replicasWritingTheSameUsersSettleOnWhatTheDatabaseHolds() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresTestServer.open(url, poolSize: 2)
            let b = try await PostgresTestServer.open(url, poolSize: 2)
            let database = try await PostgresTestServer.open(url, poolSize: 1,
                                                             configuration: .init(factsCacheCapacity: 0))
            a.start()
            b.start()
            database.start()
            var rounds = RandomWrites(seed: 22, chains: 8, maxChainsPerWrite: 2, maxTransactionsPerChain: 2)
            do {
                for round in 0..<30 {
                    try await send(rounds.next(round), to: [a, b])
                    for user in RandomWrites.users {
                        let stored = try database.facts(userID: user)
                        try await eventually("round \(round): both replicas agree on \(user)", within: .seconds(10)) {
                            try a.facts(userID: user) == stored && b.facts(userID: user) == stored
                        }
                    }
                }
            } catch {
                await a.close()
                await b.close()
                await database.close()
                throw error
            }
            await a.close()
            await b.close()
            await database.close()
        }
    }
}
