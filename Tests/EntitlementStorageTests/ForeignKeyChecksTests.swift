@testable import EntitlementStorage
import XCTest

/// Release builds skip SQLite's foreign key checks on the writer (see
/// ``EntitlementStore/enforcesForeignKeys``); the debug build every Swift test runs keeps them,
/// so a writer that stores a dangling reference fails its tests.
final class ForeignKeyChecksTests: StoreTestCase {
    func testDebugBuildsCheckEveryReferenceTheWriterStores() throws {
        #if DEBUG
        XCTAssertTrue(EntitlementStore.enforcesForeignKeys)
        #else
        XCTAssertFalse(EntitlementStore.enforcesForeignKeys)
        #endif
    }
}
