import EntitlementPorts
import Entitlements
import SQLiteStore
import StorageCore
import XCTest

/// The store starts no thread in `init`: writes wait for ``EntitlementStore/start()``, reads
/// work at once, and a store that never started still closes cleanly.
final class StoreLifecycleTests: StoreTestCase {
    func testWritesWaitForStartAndReadsDoNot() async throws {
        let store = try EntitlementStore(path: databasePath, configuration: .init())
        XCTAssertTrue(try store.facts(userID: "alice").transactions.isEmpty)
        let write = Task { try await store.write(FactsWrite(userID: "alice", source: .receipt, sourceID: "r1")) }
        // Nothing can commit before start(): there is no writer thread yet.
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(store.statistics.commits, 0)
        store.start()
        store.start()  // a second start is harmless
        _ = try await write.value
        XCTAssertEqual(store.statistics.commits, 1)
        await store.close()
    }

    func testCloseWithoutStartClosesTheFile() async throws {
        let store = try EntitlementStore(path: databasePath, configuration: .init())
        await store.close()
        await assertStoreError(.closed) {
            _ = try await store.write(FactsWrite(userID: "alice", source: .receipt, sourceID: "r1"))
        }
        // The file is usable again: nothing was left half-open.
        let reopened = try openStore()
        _ = try await reopened.write(FactsWrite(userID: "alice", source: .receipt, sourceID: "r1"))
        await reopened.close()
    }

    /// run() returns only after close() has drained the writer.
    func testRunReturnsAfterClose() async throws {
        let store = try EntitlementStore(path: databasePath, configuration: .init())
        let running = Task { await store.run() }
        _ = try await store.write(FactsWrite(userID: "alice", source: .receipt, sourceID: "r1"))
        await store.close()
        await running.value
        XCTAssertEqual(store.statistics.commits, 1)
    }
}
