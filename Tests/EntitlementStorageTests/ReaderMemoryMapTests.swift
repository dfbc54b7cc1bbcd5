@testable import SQLiteStore
@testable import StorageCore
import XCTest

/// Read connections map the file by default (``StoreConfiguration/defaultMemoryMapBytes``)
/// and read it through read() when the map is set to 0.
final class ReaderMemoryMapTests: StoreTestCase {
    func testReadersMapTheFileByDefaultAndNotWhenTurnedOff() async throws {
        let store = try openStore()
        XCTAssertGreaterThan(EntitlementStore.Configuration().memoryMapBytes, 0)

        let mapped = try SQLiteFile.openReader(path: databasePath, configuration: .init())
        defer { mapped.close() }
        // SQLite clamps the setting to its compile-time ceiling (2 GiB - 64 KiB in Debian's build).
        let limit = try XCTUnwrap(mapped.scalarInt64("PRAGMA mmap_size"))
        XCTAssertGreaterThan(limit, 1 << 30)
        XCTAssertLessThanOrEqual(limit, Int64(EntitlementStore.Configuration.defaultMemoryMapBytes))

        let unmapped = try SQLiteFile.openReader(path: databasePath, configuration: .init(memoryMapBytes: 0))
        defer { unmapped.close() }
        XCTAssertEqual(try unmapped.scalarInt64("PRAGMA mmap_size"), 0)
        await store.close()
    }
}
