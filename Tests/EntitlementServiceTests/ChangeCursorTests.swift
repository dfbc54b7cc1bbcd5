@testable import EntitlementService
import RPCCore
import XCTest

/// The cursor format, by table: round trip, string order = change order, and what is refused.
final class ChangeCursorTests: XCTestCase {
    func testEncodingTable() {
        let table: [(Int64, String)] = [
            (0, "c1.0000000000000000"), (1, "c1.0000000000000001"), (42, "c1.000000000000002a"),
            (4096, "c1.0000000000001000"), (Int64.max, "c1.7fffffffffffffff"),
        ]
        for (sequence, cursor) in table {
            XCTAssertEqual(ChangeCursor.encode(sequence), cursor)
            XCTAssertEqual(ChangeCursor.decode(cursor), sequence)
        }
    }

    func testCursorsSortAsStringsInChangeOrder() {
        let sequences: [Int64] = [1, 9, 10, 15, 16, 255, 256, 4095, 70_000, 1 << 40]
        let cursors = sequences.map(ChangeCursor.encode)
        XCTAssertEqual(cursors.sorted(), cursors)
    }

    func testMalformedCursorsAreRefused() {
        for cursor in ["", "c1.", "c1.2a", "c2.000000000000002a", "C1.000000000000002A", "c1.000000000000002A",
                       "c1.000000000000002a0", "c1.ffffffffffffffff", "c1.-00000000000002a", "x1.000000000000002a"] {
            XCTAssertNil(ChangeCursor.decode(cursor), cursor)
        }
    }

    func testStartingPointTable() throws {
        // (cursor, oldestRetained, latest) → start, or the status code thrown
        XCTAssertEqual(try ChangeCursor.startingPoint("", oldestRetained: 5, latest: 9), 9)
        XCTAssertEqual(try ChangeCursor.startingPoint(ChangeCursor.encode(4), oldestRetained: 5, latest: 9), 4)
        XCTAssertEqual(try ChangeCursor.startingPoint(ChangeCursor.encode(9), oldestRetained: 5, latest: 9), 9)
        XCTAssertEqual(try ChangeCursor.startingPoint(ChangeCursor.encode(0), oldestRetained: 1, latest: 0), 0,
                       "an empty log accepts the start")
        for (cursor, code) in [(ChangeCursor.encode(3), 11), (ChangeCursor.encode(10), 11), ("nope", 3)] {
            XCTAssertThrowsError(try ChangeCursor.startingPoint(cursor, oldestRetained: 5, latest: 9)) {
                XCTAssertEqual(($0 as? RPCError)?.code.rawValue, code, cursor)
            }
        }
    }
}
