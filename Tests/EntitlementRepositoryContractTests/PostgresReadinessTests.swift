import Foundation
import PostgreSQLStore
import StorageCore
import Synchronization
import Testing
import TestSupport

/// A replica's ``StoreReadiness`` (what `/healthz` answers, so haproxy takes it out) follows
/// whether it can reach its database: unavailable, with a reason, while it cannot; ready again
/// once it can, its owner told once each way.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresReadinessTests {
    @Test func aReplicaThatCannotReachItsDatabaseIsUnavailableUntilItCan() async throws {
        let server = try #require(PostgresTestServer.url)
        try await PostgresTestServer.withDatabase { url in
            let name = try #require(URLComponents(string: url)?.path.dropFirst()).description
            let changes = Mutex<[StoreReadiness]>([])
            let store = try await PostgresTestServer.open(url, poolSize: 2, onListenerChange: { readiness in
                changes.withLock { $0.append(readiness) }
            })
            store.start()
            #expect(store.readiness == .ready)

            // The database refuses new sessions and its sessions end: the listener cannot LISTEN again.
            try await PostgresTestServer.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false", on: server)
            try await PostgresTestServer.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'
                """, on: server)
            try await eventually("the store unavailable once the listener's session ended", within: .seconds(10)) {
                store.readiness != .ready
            }
            // Several retries later it is still out, and says why (a retry's own words come once
            // it has tried to connect again, which a loaded machine may delay past the second).
            try await Task.sleep(for: .seconds(1))
            try? await eventually("the retry's reason", within: .seconds(10)) {
                if case let .unavailable(reason) = store.readiness {
                    return reason.contains("not currently accepting connections")
                }
                return false
            }
            guard case let .unavailable(reason) = store.readiness else {
                Issue.record("ready again while the database refuses connections")
                return
            }
            #expect(reason.contains("cannot reach PostgreSQL"), "\(reason)")
            #expect(reason.contains("not currently accepting connections"), "\(reason)")

            try await PostgresTestServer.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true", on: server)
            // The listener stores its readiness before it calls onChange: wait for the call too.
            try await eventually("the store ready again once the database accepts sessions", within: .seconds(10)) {
                store.readiness == .ready && changes.withLock { $0.count } == 2
            }
            let told = changes.withLock { $0 }
            #expect(told.count == 2 && told.last == .ready, "\(told)")
            if case .unavailable = told.first {} else { Issue.record("first change was not unavailable: \(told)") }
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["1"], "writes and reads work again")
            await store.close()
        }
    }
}
