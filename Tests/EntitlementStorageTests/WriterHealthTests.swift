import EntitlementPorts
import Foundation
import SQLiteStore
@testable import StorageCore
import Testing
import TestSupport

/// A SQLite file that stops taking writes takes the store out of readiness, and the writer's
/// own probe puts it back once the file takes writes again, with no caller writing meanwhile
/// (a balancer sends a not-ready replica nothing). `PRAGMA query_only` stands for the failing
/// file: every write, the probe's too, then fails with SQLITE_READONLY.
@Suite struct WriterHealthTests {
    private func withStore(_ body: (EntitlementStore) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "writer-health-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try EntitlementStore(path: directory + "/entitlements.sqlite", configuration: .init())
        store.start()
        try await body(store)
        await store.close()
    }

    private func receipt(_ user: String) -> FactsWrite {
        Fixture.receipt(user, [Fixture.subscription("t-\(user)", chain: "c-\(user)")], sourceID: "r-\(user)")
    }

    @Test func aFileThatRefusesWritesIsNotReadyUntilTheProbeWritesAgain() async throws {
        try await withStore { store in
            _ = try await store.write(receipt("alice"))
            #expect(store.readiness == .ready)

            try await store.withWriterConnection { db in try db.execute("PRAGMA query_only = 1") }
            await #expect(throws: StoreError.self) { try await store.write(receipt("bob")) }
            guard case let .unavailable(reason) = store.readiness else {
                Issue.record("a write the file refused left the store ready")
                return
            }
            #expect(reason.contains("cannot be written"), "\(reason)")
            // Still out a probe interval later: the probe fails like the writes.
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(store.readiness != .ready)

            try await store.withWriterConnection { db in try db.execute("PRAGMA query_only = 0") }
            try await eventually("the probe puts the store back") { store.readiness == .ready }
            _ = try await store.write(receipt("bob"))
        }
    }
}
