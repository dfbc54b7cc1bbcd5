@testable import SQLiteStore
@testable import StorageCore
import XCTest

/// The writer's page cache is small while the file is under 1 GiB (see ``WriterCacheSize``).
final class WriterCacheSizeTests: XCTestCase {
    func testTheCacheIsSmallUnderOneGibibyteAndAsConfiguredBeyond() {
        let gib: Int64 = 1 << 30
        let table: [(configured: Int, fileBytes: Int64, expected: Int)] = [
            (32_768, 0, 4_096),
            (32_768, 25_000_000, 4_096),
            (32_768, gib - 1, 4_096),
            (32_768, gib, 32_768),
            (32_768, 1_315_607_552, 32_768),
            (3_000, 0, 3_000),          // already smaller: kept
            (100, 0, 2_000),            // never below the minimum
            (100, 2 * gib, 2_000),
        ]
        for row in table {
            XCTAssertEqual(
                WriterCacheSize.kibibytes(configured: row.configured, fileBytes: row.fileBytes), row.expected,
                "configured \(row.configured) KiB, file \(row.fileBytes) bytes")
        }
    }
}
