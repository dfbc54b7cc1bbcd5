import Foundation
import Testing
@testable import PostgreSQL

/// Two leases on one database: one holds, the other takes over when the holder releases or
/// its session dies.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct SingletonLeaseTests {
    /// Records a lease's changes for the test thread.
    final class Recorder: Sendable {
        let changes = Locked<[SingletonLease.Change]>([])
        func record(_ change: SingletonLease.Change) { changes.set(changes.get() + [change]) }
    }

    func makeLease(_ database: TestDatabase, name: String) -> (SingletonLease, Recorder, Task<Void, Never>) {
        let recorder = Recorder()
        let url = database.url.setting("application_name", to: name)
        let lease = SingletonLease(configuration: .init(url: url, key: 4242, retryIntervalMs: 100),
                                   onChange: recorder.record)
        return (lease, recorder, Task(executorPreference: DedicatedThreadExecutor.shared) { await lease.run() })
    }

    /// Polls `condition` every 20 ms for up to `seconds` (generous: the machine may be loaded).
    func eventually(_ seconds: Double = 60, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func oneHoldsAndReleaseHandsOver() async throws {
        try await onDedicatedThreads {
            let database = try await offPool { try TestDatabase() }
            defer { database.drop() }
            let (a, recordA, runA) = makeLease(database, name: "lease-a")
            #expect(await eventually { a.isHeld })
            let (b, recordB, runB) = makeLease(database, name: "lease-b")
            // B keeps trying while A holds: give it several retry intervals to (wrongly) succeed.
            try await Task.sleep(for: .milliseconds(600))
            #expect(!b.isHeld)
            await a.stop()
            await runA.value
            #expect(recordA.changes.get() == [.acquired, .released])
            #expect(await eventually { b.isHeld })
            await b.stop()
            await runB.value
            #expect(recordB.changes.get() == [.acquired, .released])
        }
    }

    @Test func aKilledHolderSessionHandsOverAndTheHolderReportsLoss() async throws {
        try await onDedicatedThreads {
            let database = try await offPool { try TestDatabase() }
            defer { database.drop() }
            let (a, recordA, runA) = makeLease(database, name: "lease-a")
            #expect(await eventually { a.isHeld })
            let (b, _, runB) = makeLease(database, name: "lease-b")
            try await Task.sleep(for: .milliseconds(300))
            #expect(!b.isHeld)
            // What kill -9 of the holder's process does to its session, from the server's side.
            try await offPool {
                let admin = try database.connect()
                let pid = try #require(try admin.scalarInt64(
                    "SELECT pid FROM pg_stat_activity "
                        + "WHERE application_name = 'lease-a' AND datname = current_database()"))
                try database.terminate(backend: Int32(pid))
            }
            #expect(await eventually { b.isHeld })
            #expect(await eventually { recordA.changes.get().first == .acquired && recordA.changes.get().count >= 2 })
            guard case .lost = recordA.changes.get().dropFirst().first else {
                Issue.record("A should report the loss, got \(recordA.changes.get())")
                return
            }
            // A reconnects and keeps trying, but B holds now.
            try await Task.sleep(for: .milliseconds(400))
            #expect(!a.isHeld)
            await b.stop()
            #expect(await eventually { a.isHeld })
            await a.stop()
            await runA.value
            await runB.value
        }
    }

    @Test func anUnreachableDatabaseIsReportedOnceAndNeverHeld() async throws {
        try await onDedicatedThreads {
            guard let server = TestDatabase.serverURL else { return }
            let url = try ConnectionURL(server).setting("host", to: "127.0.0.1").setting("port", to: "1")
            let recorder = Recorder()
            let lease = SingletonLease(configuration: .init(url: url, retryIntervalMs: 50), onChange: recorder.record)
            let run = Task(executorPreference: DedicatedThreadExecutor.shared) { await lease.run() }
            #expect(await eventually { !recorder.changes.get().isEmpty })
            // Several more failed attempts, none reported again.
            try await Task.sleep(for: .milliseconds(400))
            await lease.stop()
            await run.value
            let changes = recorder.changes.get()
            #expect(changes.count == 1)
            if case .unavailable(let reason) = changes.first {
                let password = try ConnectionURL(server)["password"] ?? "\u{0}"
                #expect(!reason.contains(password))
            } else {
                Issue.record("expected one unavailable report, got \(changes)")
            }
            #expect(!lease.isHeld)
        }
    }

    @Test func leaseURLAddsKeepalivesOnBothEnds() throws {
        let url = try ConnectionURL("postgresql://u:p@h/db?options=-c%20search_path%3Dx")
        let lease = SingletonLease.leaseURL(url)
        #expect(lease["keepalives_idle"] == "5" && lease["tcp_user_timeout"] == "10000")
        #expect(lease["options"]?.hasPrefix("-c search_path=x -c tcp_keepalives_idle=5") == true)
        #expect(lease["password"] == "p" && lease["dbname"] == "db")
    }
}
