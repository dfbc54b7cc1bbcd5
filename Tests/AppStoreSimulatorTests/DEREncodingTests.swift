@testable import AppStoreSimulator
import XCTest

/// The DER the simulator's receipts are made of (X.690), checked against hand-encoded bytes.
final class DEREncodingTests: XCTestCase {
    func testIntegersAreMinimalAndNonNegative() {
        let cases: [(Int64, [UInt8])] = [
            (0, [0x02, 0x01, 0x00]), (1, [0x02, 0x01, 0x01]), (127, [0x02, 0x01, 0x7F]),
            (128, [0x02, 0x02, 0x00, 0x80]), (1703, [0x02, 0x02, 0x06, 0xA7]), (65_535, [0x02, 0x03, 0x00, 0xFF, 0xFF]),
        ]
        for (value, expected) in cases { XCTAssertEqual(DER.integer(value), expected, "\(value)") }
    }

    func testLengthsUseTheLongFormFrom128() {
        XCTAssertEqual(DER.length(0), [0x00])
        XCTAssertEqual(DER.length(127), [0x7F])
        XCTAssertEqual(DER.length(128), [0x81, 0x80])
        XCTAssertEqual(DER.length(300), [0x82, 0x01, 0x2C])
    }

    func testSetElementsAreSortedByTheirEncoding() {
        let set = DER.set([DER.integer(2), DER.integer(1), DER.octetString([0])])
        XCTAssertEqual(set, [0x31, 0x09, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02, 0x04, 0x01, 0x00])
    }
}
