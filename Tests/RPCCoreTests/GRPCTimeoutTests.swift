import RPCCore
import XCTest

final class GRPCTimeoutTests: XCTestCase {
    func testUnits() {
        let table: [(String, Int64?)] = [
            ("1n", 1), ("1u", 1_000), ("1m", 1_000_000), ("1S", 1_000_000_000),
            ("2M", 120_000_000_000), ("1H", 3_600_000_000_000), ("100m", 100_000_000),
            ("99999999S", 99_999_999_000_000_000), ("0m", 0),
        ]
        for (header, expected) in table {
            XCTAssertEqual(GRPCTimeout.nanoseconds(header), expected, header)
        }
    }

    func testMalformed() {
        for header in ["", "m", "1", "1s", "1x", "-1m", "123456789m", "1.5S", " 1m", "1m ", "１m"] {
            XCTAssertNil(GRPCTimeout.nanoseconds(header), "'\(header)' should be refused")
        }
    }

    func testOverflowSaturates() {
        XCTAssertEqual(GRPCTimeout.nanoseconds("99999999H"), Int64.max)
    }
}
