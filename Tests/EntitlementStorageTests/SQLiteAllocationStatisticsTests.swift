@testable import SQLite
import XCTest

/// Opening a connection turns SQLite's allocation statistics off (``Connection``): with them on,
/// every malloc and free SQLite makes also takes a global mutex.
final class SQLiteAllocationStatisticsTests: StoreTestCase {
    func testAnOpenConnectionThatHasAllocatedLeavesNothingCounted() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try db.execute("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('allocates')")
        XCTAssertFalse(Connection.countsAllocations)
    }
}
