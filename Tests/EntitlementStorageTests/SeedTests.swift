import EntitlementPorts
import Entitlements
import SQLiteStore
import StorageCore
import TestSupport
import XCTest

/// Bulk loading (benchmarks, imports): SQLite-only, outside the repository contract.
final class SeedTests: StoreTestCase {
    func testSeedLoadsManyWritesAndEmptiesTheCache() async throws {
        let store = try openStore()
        XCTAssertEqual(try store.facts(userID: "user-1"), UserFacts())
        let writes = (0..<3_000).map { index in
            Fixture.receipt("user-\(index % 1_000)", [Fixture.subscription("\(index)", chain: "\(index)")])
        }
        try await store.seed(writes)
        XCTAssertEqual(transactionIDs(try store.facts(userID: "user-1")), ["1", "1001", "2001"])
        await store.close()
    }
}
