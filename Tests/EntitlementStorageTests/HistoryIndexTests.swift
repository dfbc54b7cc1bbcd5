import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import XCTest

/// Migration 9 dropped the (user, product, time) history index, and migration 12 clustered
/// history_events on (user, time, event id): ListHistory's product filter must still search one
/// user's range of that key, never scan the table.
final class HistoryIndexTests: StoreTestCase {
    private let eventID = Connection.historyEventIDText("h.event_id")

    func testTheProductFilterSearchesTheUsersRangeOfTheClusteredKey() async throws {
        try await openStore().close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        XCTAssertNil(try db.scalarString(
            "SELECT name FROM sqlite_master WHERE name = 'history_by_user_product_time'"))
        let sql = StoreReaderSQL.historySQL(eventID: eventID, productFilter: true)
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + sql)
        var details: [String] = []
        while try plan.step() { details.append(plan.string(at: 3)) }
        XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH h USING PRIMARY KEY (user_rowid=?") },
                      "\(details)")
        XCTAssertFalse(details.contains { $0.hasPrefix("SCAN h") }, "\(details)")
    }

    /// A page without a filter is a range of the clustered key read in its order; only the
    /// events of one millisecond are sorted, by their ids' text (migration 21 stores derived
    /// ids as integers, whose order is not the text's): never the whole range.
    func testAPageIsARangeOfTheClusteredKeySortedOnlyWithinAMillisecond() async throws {
        try await openStore().close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + StoreReaderSQL.historySQL(eventID: eventID))
        var details: [String] = []
        while try plan.step() { details.append(plan.string(at: 3)) }
        XCTAssertTrue(details.contains {
            $0.hasPrefix("SEARCH h USING PRIMARY KEY (user_rowid=? AND occurred_at_ms<?)")
        }, "\(details)")
        XCTAssertTrue(details.contains("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY"), "\(details)")
        XCTAssertFalse(details.contains("USE TEMP B-TREE FOR ORDER BY"), "\(details)")
    }
}
