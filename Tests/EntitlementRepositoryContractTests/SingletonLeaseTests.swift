import Foundation
import PostgreSQL
import PostgreSQLStore
import SQLiteStore
import StorageCore
import Synchronization
import Testing
import TestSupport

/// Two leases on one database: one holds, the other takes over when the holder releases or
/// its session dies.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct SingletonLeaseTests {
    /// Records a lease's changes for the test thread.
    final class Recorder: Sendable {
        private let recorded = Mutex<[SingletonLease.Change]>([])
        var changes: [SingletonLease.Change] { recorded.withLock { $0 } }
        func record(_ change: SingletonLease.Change) { recorded.withLock { $0.append(change) } }
    }

    func makeLease(_ url: String, name: String) throws -> (SingletonLease, Recorder, Task<Void, Never>) {
        let recorder = Recorder()
        let named = try ConnectionURL(url).setting("application_name", to: name)
        let lease = SingletonLease(configuration: .init(url: named, key: 4242, retryIntervalMs: 100),
                                   onChange: recorder.record)
        return (lease, recorder, Task { await lease.run() })
    }

    @Test func oneHoldsAndReleaseHandsOver() async throws {
        try await PostgresTestServer.withDatabase { url in
            let (a, recordA, runA) = try makeLease(url, name: "lease-a")
            try await eventually("a holds the lease") { a.isHeld }
            let (b, recordB, runB) = try makeLease(url, name: "lease-b")
            // B keeps trying while A holds: give it several retry intervals to (wrongly) succeed.
            try await Task.sleep(for: .milliseconds(600))
            #expect(!b.isHeld)
            await a.stop()
            await runA.value
            #expect(recordA.changes == [.acquired, .released])
            try await eventually("b holds the lease") { b.isHeld }
            await b.stop()
            await runB.value
            #expect(recordB.changes == [.acquired, .released])
        }
    }

    @Test func aKilledHolderSessionHandsOverAndTheHolderReportsLoss() async throws {
        try await PostgresTestServer.withDatabase { url in
            let (a, recordA, runA) = try makeLease(url, name: "lease-a")
            try await eventually("a holds the lease") { a.isHeld }
            let (b, _, runB) = try makeLease(url, name: "lease-b")
            try await Task.sleep(for: .milliseconds(300))
            #expect(!b.isHeld)
            // What kill -9 of the holder's process does to its session, from the server's side.
            try await PostgresTestServer.execute("""
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE application_name = 'lease-a' AND datname = current_database()
                """, on: url)
            try await eventually("b holds the lease") { b.isHeld }
            try await eventually("a reported its loss") {
                recordA.changes.first == .acquired && recordA.changes.count >= 2
            }
            guard case .lost = recordA.changes.dropFirst().first else {
                Issue.record("A should report the loss, got \(recordA.changes)")
                return
            }
            // A reconnects and keeps trying, but B holds now.
            try await Task.sleep(for: .milliseconds(400))
            #expect(!a.isHeld)
            await b.stop()
            try await eventually("a holds the lease") { a.isHeld }
            await a.stop()
            await runA.value
            await runB.value
        }
    }

    @Test func anUnreachableDatabaseIsReportedOnceAndNeverHeld() async throws {
        let server = try #require(PostgresTestServer.url)
        let url = try ConnectionURL(server).setting("host", to: "127.0.0.1").setting("port", to: "1")
        let recorder = Recorder()
        let lease = SingletonLease(configuration: .init(url: url, retryIntervalMs: 50), onChange: recorder.record)
        let run = Task { await lease.run() }
        try await eventually("a change reported") { !recorder.changes.isEmpty }
        // Several more failed attempts, none reported again.
        try await Task.sleep(for: .milliseconds(400))
        await lease.stop()
        await run.value
        let changes = recorder.changes
        #expect(changes.count == 1)
        if case .unavailable(let reason) = changes.first {
            let password = try ConnectionURL(server)["password"] ?? "\u{0}"
            #expect(!reason.contains(password))
        } else {
            Issue.record("expected one unavailable report, got \(changes)")
        }
        #expect(!lease.isHeld)
    }

    @Test func leaseURLAddsKeepalivesOnBothEndsAndAName() throws {
        let url = try ConnectionURL("postgresql://u:p@h/db?options=-c%20search_path%3Dx")
        let lease = SingletonLease.leaseURL(url)
        #expect(lease["keepalives_idle"] == "5" && lease["tcp_user_timeout"] == "10000")
        #expect(lease["options"]?.hasPrefix("-c search_path=x -c tcp_keepalives_idle=5") == true)
        #expect(lease["password"] == "p" && lease["dbname"] == "db")
        #expect(lease["application_name"] == "singleton-lease")
        #expect(SingletonLease.leaseURL(url.setting("application_name", to: "mine"))["application_name"] == "mine")
    }

    /// The daemon's lease comes from its store: PostgreSQL's names its connection for operators;
    /// SQLite has none (one process holds the duties from startup).
    @Test func theStoreHandsOutTheLease() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url, poolSize: 1)
            let recorder = Recorder()
            let lease = try #require(store.makeSingletonLease(onChange: recorder.record))
            let run = Task { await lease.run() }
            try await eventually("the lease held") { lease.isHeld }
            let named = try await PostgresTestServer.offPool {
                let connection = try PostgreSQL.Connection(url: url)
                defer { connection.close() }
                return try connection.scalarInt64(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'entitlementd-lease' "
                        + "AND datname = current_database()")
            }
            #expect(named == 1)
            await lease.stop()
            await run.value
            #expect(recorder.changes == [.acquired, .released])
            await store.close()
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lease-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sqlite").path
        let sqlite = try EntitlementStore(path: path, configuration: .init())
        #expect(sqlite.makeSingletonLease(onChange: { _ in }) == nil)
        await sqlite.close()
    }
}
