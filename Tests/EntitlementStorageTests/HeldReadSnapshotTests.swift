import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// Facts reads keep SQLite's read transaction open between calls
/// (``StoreReader/prepare(forFactsEpoch:)``): only while the cache's epoch is the one the
/// snapshot began under, the writer bumps it after every commit, and it ends the snapshots of
/// idle readers before it commits, so none holds the WAL back.
final class HeldReadSnapshotTests: StoreTestCase {
    func testAFactsReadReusesItsSnapshotOnlyUnderTheSameEpoch() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("u", [Fixture.subscription("t1", chain: "c")]))
        let reader = try StoreReader(db: SQLiteFile.openReader(path: databasePath, configuration: .init()))
        defer { reader.close() }

        try reader.prepare(forFactsEpoch: 7)
        XCTAssertEqual(try reader.facts(userID: "u").transactions.map(\.transactionID), ["t1"])
        XCTAssertTrue(reader.db.isInTransaction, "the snapshot stays open after the read")

        let epochBefore = store.cache.epoch
        _ = try await store.write(Fixture.receipt("u", [Fixture.subscription("t2", chain: "c")]))
        XCTAssertGreaterThan(store.cache.epoch, epochBefore, "a commit bumps the epoch")

        try reader.prepare(forFactsEpoch: 7)
        XCTAssertEqual(try reader.facts(userID: "u").transactions.map(\.transactionID), ["t1"],
                       "the same epoch reads the held snapshot")
        try reader.prepare(forFactsEpoch: 8)
        XCTAssertEqual(Set(try reader.facts(userID: "u").transactions.map(\.transactionID)), ["t1", "t2"],
                       "a new epoch takes a new snapshot")

        try reader.prepare(forFactsEpoch: nil)
        XCTAssertFalse(reader.db.isInTransaction, "any other read runs in its own transactions")
        await store.close()
    }

    /// Without a cache every facts read goes to SQLite through the pool's readers: each one
    /// after a write sees it, and after the next commit no reader holds a snapshot from before
    /// it (a passive checkpoint from another connection copies the whole WAL).
    func testReadsThroughThePoolSeeEveryWriteAndHoldNoOldSnapshot() async throws {
        let store = try openStore(cacheCapacity: 0)
        var expected: Set<String> = []
        for index in 1...5 {
            _ = try await store.write(Fixture.receipt("u", [Fixture.subscription("t\(index)", chain: "c")]))
            expected.insert("t\(index)")
            XCTAssertEqual(Set(try store.facts(userID: "u").transactions.map(\.transactionID)), expected)
            XCTAssertEqual(Set(try store.facts(userID: "u").transactions.map(\.transactionID)), expected)
        }
        _ = try await store.write(Fixture.receipt("v", [Fixture.subscription("v1", chain: "cv")]))
        let other = try Connection(path: databasePath)
        defer { other.close() }
        let statement = try other.prepare("PRAGMA wal_checkpoint(PASSIVE)")
        XCTAssertTrue(try statement.step())
        let (busy, logFrames, checkpointed) = (statement.int64(at: 0), statement.int64(at: 1), statement.int64(at: 2))
        statement.reset()
        XCTAssertEqual(busy, 0)
        XCTAssertGreaterThan(logFrames, 0)
        XCTAssertEqual(checkpointed, logFrames, "no idle reader holds a snapshot from before the last commit")
        await store.close()
    }
}
