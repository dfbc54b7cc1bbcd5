import ProtobufWire
import XCTest

/// Unknown fields are skipped, whatever their wire type, so an old build reads new messages.
final class ProtobufSkipTests: XCTestCase {
    private let known = hex("08 05")

    private func decodeWithKnownField(after unknown: String) throws -> Scalars {
        try Scalars(protobufBytes: hex(unknown) + known)
    }

    func testUnknownFieldsOfEveryWireTypeAreSkipped() throws {
        let unknowns = [
            "c8 3e 96 01",                      // 1001, varint
            "c8 3e ff ff ff ff ff ff ff ff ff 01",   // 1001, ten-byte varint
            "c9 3e 01 02 03 04 05 06 07 08",    // 1001, fixed64
            "ca 3e 03 61 62 63",                // 1001, length-delimited
            "ca 3e 00",                         // 1001, empty length-delimited
            "cd 3e 01 02 03 04",                // 1001, fixed32
            "cb 3e cc 3e",                      // 1001, empty group
            "cb 3e 08 01 12 01 61 cc 3e",       // 1001, group holding fields 1 and 2
            "cb 3e 1b 08 01 1c 23 24 cc 3e",    // 1001, group holding groups 3 and 4
        ]
        for unknown in unknowns {
            XCTAssertEqual(try decodeWithKnownField(after: unknown).int64Value, 5, unknown)
        }
    }

    /// A known field number with an unexpected wire type is skipped like an unknown field
    /// (as protobuf's runtimes do), not misread as the declared type.
    func testKnownFieldWithWrongWireTypeIsSkipped() throws {
        let message = try Scalars(protobufBytes: hex("0a 02 08 07  4d 01 02 03 04") + known)
        XCTAssertEqual(message.int64Value, 5)
        XCTAssertEqual(message.stringValue, "")
    }

    func testEndGroupWithoutStartIsMalformed() {
        assertMalformedGroup("0c")
        assertMalformedGroup("cc 3e")
    }

    func testMismatchedEndGroupIsMalformed() {
        assertMalformedGroup("cb 3e 14")
        assertMalformedGroup("cb 3e 1b cc 3e 1c")
    }

    func testUnterminatedGroupIsTruncated() {
        XCTAssertThrowsError(try Scalars(protobufBytes: hex("cb 3e 08 01"))) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .truncated)
        }
    }

    func testGroupNestingIsBounded() throws {
        let depth = ProtobufReader.maximumGroupDepth
        let allowed = [UInt8](repeating: 0x0B, count: depth) + [UInt8](repeating: 0x0C, count: depth)
        XCTAssertEqual(try Scalars(protobufBytes: allowed + known).int64Value, 5)

        let tooDeep = [UInt8](repeating: 0x0B, count: depth + 1)
            + [UInt8](repeating: 0x0C, count: depth + 1)
        XCTAssertThrowsError(try Scalars(protobufBytes: tooDeep)) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .malformedGroup)
        }
        // Far deeper input must fail the same way, without exhausting the stack.
        XCTAssertThrowsError(try Scalars(protobufBytes: [UInt8](repeating: 0x0B, count: 1_000_000)))
    }

    private func assertMalformedGroup(_ input: String, line: UInt = #line) {
        XCTAssertThrowsError(try Scalars(protobufBytes: hex(input)), line: line) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .malformedGroup, "\(error)",
                           line: line)
        }
    }
}
