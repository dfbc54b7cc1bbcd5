import EntitlementPorts
import Entitlements
import Foundation
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// A write fails with an I/O error at COMMIT (the WAL cannot be written): the batch's callers
/// get a storage failure, reads keep answering, and the writer recovers once writes work again.
final class WriteIOErrorTests: StoreTestCase {
    func testAnIOErrorAtCommitFailsTheBatchKeepsReadsAndTheWriterRecovers() async throws {
        let store = try openStore()
        let before = Fixture.receipt("alice", [Fixture.subscription("a1", chain: "a1")])
        _ = try await store.write(before)
        XCTAssertEqual(try transactionIDs(store.facts(userID: "alice")), ["a1"])

        let wal = databasePath + "-wal"
        // Used only on the writer thread, one hook after the other (the queue orders them).
        let fault = ReadOnlyDescriptors(path: wal)
        try await store.withWriterConnection { _ in try fault.swap() }
        let writes = (0..<30).map { Fixture.receipt("user-\($0)", [Fixture.subscription("t\($0)", chain: "t\($0)")]) }
            + [Fixture.receipt("alice", [Fixture.subscription("a2", chain: "a1", purchasedAt: 1_702_592_000_000)])]
        let results = await DatabaseFullTests.writeConcurrently(writes, to: store, behindPauseOf: store)
        for (write, result) in zip(writes, results) {
            guard case let .failure(error) = result else {
                XCTFail("\(write.userID): acknowledged although the WAL could not be written")
                continue
            }
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.code, .storageFailure, "\(error)")
            XCTAssertEqual((storeError?.cause as? SQLiteError)?.primaryCode, 10, "SQLITE_IOERR: \(error)")
        }
        // Reads keep answering, from the last committed state (the cache holds nothing newer).
        XCTAssertEqual(try transactionIDs(store.facts(userID: "alice")), ["a1"])
        XCTAssertEqual(try store.facts(userID: "user-3").transactions.count, 0)

        try await store.withWriterConnection { _ in fault.restore() }
        let results2 = await DatabaseFullTests.writeConcurrently(writes, to: store, behindPauseOf: store)
        for (write, result) in zip(writes, results2) {
            XCTAssertEqual(try result.get().newTransactions, 1, write.userID)
        }
        XCTAssertEqual(try transactionIDs(store.facts(userID: "alice")), ["a1", "a2"])
        await store.close()

        let reopened = try openStore()
        XCTAssertEqual(try transactionIDs(reopened.facts(userID: "alice")), ["a1", "a2"])
        for index in 0..<30 {
            XCTAssertEqual(try transactionIDs(reopened.facts(userID: "user-\(index)")), ["t\(index)"])
        }
        try await reopened.withWriterConnection { db in
            XCTAssertEqual(try db.scalarString("PRAGMA integrity_check"), "ok")
        }
        await reopened.close()
    }
}
