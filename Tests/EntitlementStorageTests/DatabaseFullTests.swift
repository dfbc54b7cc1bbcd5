import EntitlementPorts
import Entitlements
import Foundation
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// The database fills up (SQLITE_FULL, provoked with the writer connection's max_page_count):
/// writes fail with a storage failure, reads keep answering, nothing acknowledged is lost,
/// nothing refused appears, and the writer recovers by itself when space returns.
final class DatabaseFullTests: StoreTestCase {
    func testAFullDatabaseRefusesSomeWritesOfABatchKeepsTheRestAndRecovers() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("a1", chain: "a1")]))
        let aliceBefore = try store.facts(userID: "alice")  // now cached
        try await fill(store, leavingPages: 12)

        // One batch: the writer sleeps in a connection job while the writes queue behind it.
        let writes = (0..<120).map { Self.newUserWrite($0) } + [Self.aliceRenewal]
        let results = await Self.writeConcurrently(writes, to: store, behindPauseOf: store)

        var acknowledged: [FactsWrite] = []
        var refused: [FactsWrite] = []
        for (write, result) in zip(writes, results) {
            switch result {
            case let .success(outcome):
                // Each write counts its own new transaction exactly once: none was committed
                // outside its batch and then replayed.
                XCTAssertEqual(outcome.tallies, WriteOutcome(newTransactions: 1, newEvents: 1), write.userID)
                acknowledged.append(write)
            case let .failure(error):
                Self.assertDatabaseFull(error)
                refused.append(write)
            }
        }
        XCTAssertFalse(acknowledged.isEmpty, "a few pages were left: some writes must fit")
        XCTAssertFalse(refused.isEmpty, "the database was full: some writes must fail")
        XCTAssertTrue(refused.contains { $0.userID == "alice" }, "alice's renewal comes last and cannot fit")

        // Reads keep answering while full; the cache shows no trace of the refused writes.
        for write in acknowledged {
            XCTAssertEqual(try transactionIDs(store.facts(userID: write.userID)), [write.transactions[0].transactionID])
        }
        for write in refused {
            XCTAssertEqual(
                try transactionIDs(store.facts(userID: write.userID)),
                transactionIDs(write.userID == "alice" ? aliceBefore : UserFacts()))
        }
        XCTAssertEqual(try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events.count, 1)

        // Space returns: the same writer takes the refused writes, no restart.
        try await store.withWriterConnection { db in try db.execute("PRAGMA max_page_count = 1073741823") }
        for write in refused {
            let outcome = try await store.write(write)
            XCTAssertEqual(outcome.newTransactions, 1, write.userID)
        }
        XCTAssertEqual(try transactionIDs(store.facts(userID: "alice")), ["a1", "a2"])
        await store.close()

        // Everything acknowledged is durable, once, in a consistent file.
        let reopened = try openStore()
        for write in writes {
            let expected = write.userID == "alice" ? ["a1", "a2"] : Set(write.transactions.map(\.transactionID))
            XCTAssertEqual(try transactionIDs(reopened.facts(userID: write.userID)), expected, write.userID)
        }
        try await reopened.withWriterConnection { db in
            XCTAssertEqual(try db.scalarString("PRAGMA integrity_check"), "ok")
        }
        await reopened.close()
    }

    func testAFullDatabaseFailsASingleWriteAndTheNextBatchStillCommits() async throws {
        let store = try openStore()
        try await fill(store, leavingPages: 0)
        // Big enough to need new pages on its own.
        let big = Fixture.receipt("bob", (0..<40).map { Fixture.subscription("b\($0)", chain: "b\($0)") })
        let error = await assertStoreError(.storageFailure) { _ = try await store.write(big) }
        if let error { Self.assertDatabaseFull(error) }
        XCTAssertEqual(try store.facts(userID: "bob").transactions.count, 0)
        try await store.withWriterConnection { db in
            XCTAssertFalse(db.isInTransaction, "the failed batch must not leave a transaction open")
            try db.execute("PRAGMA max_page_count = 1073741823")
        }
        let outcome = try await store.write(big)
        XCTAssertEqual(outcome.newTransactions, 40)
        XCTAssertEqual(try store.facts(userID: "bob").transactions.count, 40)
        await store.close()
    }

    // MARK: Helpers

    /// Caps the writer's database at its current size plus `leavingPages` pages.
    private func fill(_ store: EntitlementStore, leavingPages: Int64) async throws {
        try await store.withWriterConnection { db in
            let pages = try db.scalarInt64("PRAGMA page_count") ?? 0
            try db.execute("PRAGMA max_page_count = \(pages + leavingPages)")
        }
    }

    private static func newUserWrite(_ index: Int) -> FactsWrite {
        Fixture.receipt("user-\(index)", [Fixture.subscription("t\(index)", chain: "t\(index)")])
    }

    /// Alice's renewal must not fit once the batch has used the last pages, whatever slack the
    /// tables' last leaves happen to have: a token longer than a page needs an overflow page of
    /// its own (in the transactions row and in her user_facts record), which a full file cannot
    /// give.
    private static let aliceRenewal: FactsWrite = {
        var renewal = Fixture.subscription("a2", chain: "a1", purchasedAt: 1_702_592_000_000)
        renewal.appAccountToken = String(repeating: "t", count: 16_384)
        return Fixture.receipt("alice", [renewal])
    }()

    static func assertDatabaseFull(_ error: any Error, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = error as? StoreError else {
            return XCTFail("expected a StoreError, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.code, .storageFailure, file: file, line: line)
        XCTAssertEqual((error.cause as? SQLiteError)?.primaryCode, 13, "SQLITE_FULL: \(error)", file: file, line: line)
    }

    /// Sends `writes` at once while the writer pauses, so they queue up as one group commit.
    static func writeConcurrently(
        _ writes: [FactsWrite], to store: EntitlementStore, behindPauseOf pausing: EntitlementStore
    ) async -> [Result<WriteOutcome, any Error>] {
        await withTaskGroup(of: (Int, Result<WriteOutcome, any Error>).self) { group in
            group.addTask {
                _ = try? await pausing.withWriterConnection { _ in usleep(300_000) }
                return (-1, .success(WriteOutcome()))
            }
            for (index, write) in writes.enumerated() {
                group.addTask {
                    do { return (index, .success(try await store.write(write))) } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<WriteOutcome, any Error>](repeating: .success(WriteOutcome()), count: writes.count)
            for await (index, result) in group where index >= 0 { results[index] = result }
            return results
        }
    }
}
