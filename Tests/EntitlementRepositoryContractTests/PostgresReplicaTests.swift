import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQL
@testable import PostgreSQLStore
import SQLiteStore
import StorageCore
import Testing
import TestSupport

/// Two ``PostgresEntitlementStore``s on one database are two replicas: what one process
/// guaranteed alone must hold across them (the writers serialize on the advisory lock; each
/// replica's cache learns the other's writes through LISTEN/NOTIFY).
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresReplicaTests {
    /// Runs `body` with two started replicas of one fresh database.
    private func withReplicas(
        policy: TransferPolicy = .transfer,
        _ body: (PostgresEntitlementStore, PostgresEntitlementStore) async throws -> Void
    ) async throws {
        try await PostgresTestServer.withDatabase { url in
            let configuration = EntitlementStore.Configuration(transferPolicy: policy)
            let a = try await PostgresTestServer.open(url, poolSize: 2, configuration: configuration)
            let b = try await PostgresTestServer.open(url, poolSize: 2, configuration: configuration)
            a.start()
            b.start()
            do {
                try await body(a, b)
            } catch {
                await a.close()
                await b.close()
                throw error
            }
            await a.close()
            await b.close()
        }
    }

    @Test func theSameReceiptWrittenToBothReplicasAtOnceRecordsOnce() async throws {
        try await withReplicas { a, b in
            for round in 0..<20 {
                let write = Fixture.receipt("user-\(round)", [Fixture.subscription("t\(round)", chain: "c\(round)")],
                                            sourceID: "receipt-\(round)")
                async let first = a.write(write)
                async let second = b.write(write)
                let outcomes = try await [first, second]
                #expect(outcomes.map(\.newTransactions).sorted() == [0, 1], "round \(round)")
                #expect(outcomes.filter(\.alreadyProcessed).count == 1, "round \(round)")
                let historyA = try historyIDs(a, "user-\(round)")
                #expect(historyA.count == 1, "\(historyA)")
                #expect(try historyIDs(b, "user-\(round)") == historyA)
            }
            #expect(try a.changes(after: 0, userID: nil, limit: 100).count == 20, "one change per user")
        }
    }

    @Test func theSameNotificationAppliedByBothReplicasAtOnceAppliesOnce() async throws {
        try await withReplicas { a, b in
            _ = try await a.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            for round in 0..<20 {
                let at = Fixture.purchasedAt + Int64(round + 1) * 60_000
                let notification = Fixture.notification(
                    "v2:uuid-\(round)", signedAt: at, renewals: [Fixture.renewal(chain: "1", signedAt: at)],
                    events: [Fixture.event("v2:uuid-\(round)", .autoRenewEnabled, chain: "1", at: at)])
                async let first = a.apply(notification)
                async let second = b.apply(notification)
                let outcomes = try await [first, second]
                #expect(outcomes.filter(\.duplicate).count == 1, "round \(round)")
                #expect(outcomes.map(\.newEvents).sorted() == [0, 1], "round \(round)")
            }
            let history = try historyIDs(b, "alice")
            #expect(history.count == 21 && Set(history).count == 21, "\(history)")
        }
    }

    @Test func anOwnershipConflictBetweenReplicasIsDecidedOnce() async throws {
        try await withReplicas(policy: .reject) { a, b in
            for round in 0..<10 {
                let chain = "shared-\(round)"
                let purchase = [Fixture.subscription(chain, chain: chain)]
                async let alice = outcome { try await a.write(Fixture.receipt("alice", purchase)) }
                async let bob = outcome { try await b.write(Fixture.receipt("bob", purchase)) }
                let results = await [alice, bob]
                let failures = results.compactMap { result -> StoreError? in
                    if case let .failure(error) = result { return error as? StoreError }
                    return nil
                }
                #expect(failures.count == 1 && failures.first?.code == .ownershipConflict,
                        "round \(round): \(results)")
                func owners(_ store: PostgresEntitlementStore) -> [String] {
                    ["alice", "bob"].filter { user in
                        (try? store.facts(userID: user).transactions.contains { $0.originalTransactionID == chain })
                            ?? false
                    }
                }
                // Each replica may answer from its cache until the other's NOTIFY arrives (milliseconds).
                try await eventually("round \(round): one owner", within: .seconds(10)) { owners(a).count == 1 }
                try await eventually("round \(round): b agrees", within: .seconds(10)) { owners(b) == owners(a) }
            }
        }
    }

    @Test func aWriteOnOneReplicaInvalidatesTheOthersCache() async throws {
        try await withReplicas { a, b in
            _ = try await a.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(transactionIDs(try b.facts(userID: "alice")) == ["1"], "read by b, now in b's cache")
            _ = try await a.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1"),
                                                            Fixture.subscription("2", chain: "1")]))
            try await eventually("b's cache invalidated by a's write", within: .seconds(10)) {
                transactionIDs(try b.facts(userID: "alice")) == ["1", "2"]
            }
            #expect(transactionIDs(try a.facts(userID: "alice")) == ["1", "2"], "a reads its own write at once")
        }
    }

    @Test func changeObserversOfOneReplicaHearTheOthersCommits() async throws {
        try await withReplicas { a, b in
            let heard = CommittedSequences()
            b.onChangesCommitted { heard.record($0) }
            _ = try await a.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let latest = try a.changeLogBounds().latest
            #expect(latest > 0)
            try await eventually("b's observers heard \(latest)", within: .seconds(10)) {
                heard.values.contains(latest)
            }
        }
    }

    private func outcome(_ body: () async throws -> WriteOutcome) async -> Result<WriteOutcome, any Error> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

}

/// The PostgreSQL schema's migrations: once for replicas that start together, and a newer
/// schema than the binary knows stops startup; the password never shows in an error.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresMigrationTests {
    @Test func replicasStartingTogetherMigrateOnce() async throws {
        try await PostgresTestServer.withDatabase { url in
            let stores = try await withThrowingTaskGroup(of: PostgresEntitlementStore.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await PostgresTestServer.open(url, poolSize: 1) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(stores.count == 4)
            for store in stores { await store.close() }
            let counts = try await PostgresTestServer.offPool {
                let admin = try PostgreSQL.Connection(url: url)
                defer { admin.close() }
                return [try admin.scalarInt64("SELECT count(*) FROM schema_migrations"),
                        try admin.scalarInt64("SELECT count(*) FROM change_log_identity")]
            }
            #expect(counts == [Int64(PostgresMigrator.latestVersion), 1])
        }
    }

    @Test func aNewerSchemaStopsStartup() async throws {
        try await PostgresTestServer.withDatabase { url in
            let first = try await PostgresTestServer.open(url)
            await first.close()
            try await PostgresTestServer.execute("INSERT INTO schema_migrations VALUES (99, 'from_the_future', 0)",
                                                 on: url)
            await expectStoreError(.schemaTooNew) {
                _ = try await PostgresTestServer.open(url)
            }
        }
    }

    @Test func theUnreachableDatabaseErrorNamesTheServerButNotThePassword() async throws {
        let password = "s3cret-\(UInt32.random(in: 0...UInt32.max))"
        let url = "postgresql://entitlementd:\(password)@127.0.0.1:1/postgres?connect_timeout=2"
        let error = await expectStoreError(.storageFailure) {
            _ = try await PostgresTestServer.open(url)
        }
        let text = "\(String(describing: error)) \(error.map { String(reflecting: $0) } ?? "")"
        #expect(!text.contains(password), "\(text)")
        #expect(text.contains("127.0.0.1"), "\(text)")
    }

    @Test func aWrongPasswordErrorDoesNotRepeatIt() async throws {
        let server = try #require(PostgresTestServer.url)
        var components = try #require(URLComponents(string: server))
        let password = "wrong-\(UInt32.random(in: 0...UInt32.max))"
        components.password = password
        let wrongURL = components.string!
        let error = await expectStoreError(.storageFailure) {
            _ = try await PostgresTestServer.open(wrongURL)
        }
        let text = "\(String(describing: error)) \(error.map { String(reflecting: $0) } ?? "")"
        #expect(!text.contains(password), "\(text)")
    }
}

/// Sessions the server ends (a restart, a failover, an operator's pg_terminate_backend) cost
/// no acknowledged write and no stale read: the writer retries on a new session, readers
/// reconnect, and the listener clears the cache and listens again.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresReconnectTests {
    @Test func terminatedSessionsReconnectAndInvalidationResumes() async throws {
        try await PostgresTestServer.withDatabase { url in
            let drops = CommittedSequences()
            let a = try await PostgresTestServer.open(url, poolSize: 2, onListenerChange: {
                if case .unavailable = $0 { drops.record(1) }
            })
            let b = try await PostgresTestServer.open(url, poolSize: 2)
            a.start()
            b.start()
            _ = try await b.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(transactionIDs(try a.facts(userID: "alice")) == ["1"])

            try await PostgresTestServer.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """, on: url)

            // Every session of both replicas is gone: writer, readers, listeners.
            _ = try await b.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1"),
                                                            Fixture.subscription("2", chain: "1")]))
            #expect(transactionIDs(try b.facts(userID: "alice")) == ["1", "2"], "b's reader reconnected")
            try await eventually("a's listener noticed its session ended", within: .seconds(10)) {
                !drops.values.isEmpty
            }
            try await eventually("a's cache dropped while no notification reached it", within: .seconds(10)) {
                transactionIDs(try a.facts(userID: "alice")) == ["1", "2"]
            }

            // Listening again: a later write on b reaches a's cache through NOTIFY.
            #expect(transactionIDs(try a.facts(userID: "alice")) == ["1", "2"])
            _ = try await b.write(Fixture.receipt("alice", [Fixture.subscription("3", chain: "1")]))
            try await eventually("b's later write heard by a", within: .seconds(10)) {
                transactionIDs(try a.facts(userID: "alice")).count == 3
            }
            await a.close()
            await b.close()
        }
    }
}
