@testable import EntitlementStorage
import SQLite
import XCTest

/// Migration 9 dropped the (user, product, time) history index, and migration 12 clustered
/// history_events on (user, time, event id): ListHistory's product filter must still search one
/// user's range of that key, never scan the table.
final class HistoryIndexTests: StoreTestCase {
    func testTheProductFilterSearchesTheUsersRangeOfTheClusteredKey() async throws {
        try await openStore().close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        XCTAssertNil(try db.scalarString(
            "SELECT name FROM sqlite_master WHERE name = 'history_by_user_product_time'"))
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + StoreReaderSQL.productHistorySQL)
        var details: [String] = []
        while try plan.step() { details.append(plan.string(at: 3)) }
        XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH h USING PRIMARY KEY (user_rowid=?") },
                      "\(details)")
        XCTAssertFalse(details.contains { $0.hasPrefix("SCAN h") }, "\(details)")
    }

    /// A page without a filter is a range of the clustered key read in its order: no sort.
    func testAPageIsARangeOfTheClusteredKeyWithoutASort() async throws {
        try await openStore().close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + StoreReaderSQL.historySQL)
        var details: [String] = []
        while try plan.step() { details.append(plan.string(at: 3)) }
        XCTAssertTrue(details.contains {
            $0.hasPrefix("SEARCH h USING PRIMARY KEY (user_rowid=? AND (occurred_at_ms,event_id)<(?,?))")
        }, "\(details)")
        XCTAssertFalse(details.contains { $0.contains("TEMP B-TREE") }, "\(details)")
    }
}
