@testable import SQLiteStore
@testable import StorageCore
import XCTest

/// Release builds skip SQLite's foreign key checks on the writer (see
/// ``SQLiteFile/enforcesForeignKeys``); the debug build every Swift test runs keeps them,
/// so a writer that stores a dangling reference fails its tests.
final class ForeignKeyChecksTests: StoreTestCase {
    func testDebugBuildsCheckEveryReferenceTheWriterStores() throws {
        #if DEBUG
        XCTAssertTrue(SQLiteFile.enforcesForeignKeys)
        #else
        XCTAssertFalse(SQLiteFile.enforcesForeignKeys)
        #endif
    }
}
