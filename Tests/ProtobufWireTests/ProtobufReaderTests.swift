import ProtobufWire
import XCTest

final class ProtobufReaderTests: XCTestCase {
    func testFieldsInAnyOrder() throws {
        // bool (7), then string (9), then int64 (1): reverse of the order we write.
        let message = try Scalars(protobufBytes: hex("38 01  4a 01 61  08 05"))
        XCTAssertEqual(message.int64Value, 5)
        XCTAssertEqual(message.stringValue, "a")
        XCTAssertTrue(message.boolValue)
    }

    func testLastValueWinsForScalars() throws {
        let message = try Scalars(protobufBytes: hex("08 01  4a 01 61  08 02  4a 01 62  38 01  38 00"))
        XCTAssertEqual(message.int64Value, 2)
        XCTAssertEqual(message.stringValue, "b")
        XCTAssertFalse(message.boolValue)
    }

    /// A singular message field seen twice merges: later scalars win, repeated fields append.
    func testSingularMessageFieldMerges() throws {
        // nested {name: "a", count: 2, values: [1]} then nested {count: 3, values: [2]}
        let message = try Scalars(protobufBytes: hex("6a 07 0a 01 61 10 02 18 01  6a 04 10 03 18 02"))
        XCTAssertEqual(message.nested, Nested(name: "a", count: 3, values: [1, 2]))
    }

    func testNegativeInt32FromTenByteVarint() throws {
        XCTAssertEqual(try Scalars(protobufBytes: hex("10 ff ff ff ff ff ff ff ff ff 01")).int32Value, -1)
        // The low 32 bits are kept, as protobuf's runtimes do for an int64 sent to an int32.
        XCTAssertEqual(try Scalars(protobufBytes: hex("10 80 80 80 80 80 80 80 80 80 01")).int32Value, 0)
        XCTAssertEqual(try Scalars(protobufBytes: hex("10 ff ff ff ff 07")).int32Value, .max)
    }

    func testInt64FromVarint() throws {
        XCTAssertEqual(try Scalars(protobufBytes: hex("08 ff ff ff ff ff ff ff ff 7f")).int64Value, .max)
        XCTAssertEqual(try Scalars(protobufBytes: hex("08 80 80 80 80 80 80 80 80 80 01")).int64Value, .min)
        // A short (5-byte) encoding of a negative int32 is not sign-extended for int64.
        XCTAssertEqual(try Scalars(protobufBytes: hex("08 ff ff ff ff 0f")).int64Value, 0xFFFF_FFFF)
    }

    func testNonCanonicalVarintsAreAccepted() throws {
        // Redundant continuation bytes are valid encodings of the same number.
        XCTAssertEqual(try Scalars(protobufBytes: hex("08 81 80 80 00")).int64Value, 1)
    }

    func testBoolIsAnyNonZeroVarint() throws {
        XCTAssertTrue(try Scalars(protobufBytes: hex("38 02")).boolValue)
        XCTAssertTrue(try Scalars(protobufBytes: hex("38 80 80 80 80 80 80 80 80 80 01")).boolValue)
    }

    func testUnknownEnumNumberIsKept() throws {
        let message = try Scalars(protobufBytes: hex("40 e7 07"))
        XCTAssertEqual(message.enumValue, 999)
        XCTAssertEqual(message.protobufBytes(), hex("40 e7 07"))
    }

    func testRoundTripOfExtremes() throws {
        var message = Scalars()
        message.int64Value = .min
        message.int32Value = .min
        message.sint64Value = .max
        message.sint32Value = .min
        message.fixed32Value = .max
        message.fixed64Value = .max
        message.stringValue = "emoji 🎉 and NUL \u{0}"
        message.bytesValue = Array(0...255)
        XCTAssertEqual(try Scalars(protobufBytes: message.protobufBytes()), message)
    }

    func testReaderOverASliceWithNonZeroStartIndex() throws {
        let framed: [UInt8] = [0, 0, 0, 0, 3] + hex("08 96 01")
        XCTAssertEqual(try Scalars(protobufBytes: framed[5...]).int64Value, 150)
    }

    func testNextFieldReportsNumberAndWireType() throws {
        var reader = ProtobufReader(hex("08 00  11 0000000000000000  1a 00  1b 1c  25 00000000")[...])
        var fields: [ProtobufField] = []
        while let field = try reader.nextField() {
            fields.append(field)
            if field.wireType != .endGroup, field.wireType != .startGroup {
                try reader.skip(field)
            }
        }
        XCTAssertEqual(fields, [
            ProtobufField(number: 1, wireType: .varint),
            ProtobufField(number: 2, wireType: .fixed64),
            ProtobufField(number: 3, wireType: .lengthDelimited),
            ProtobufField(number: 3, wireType: .startGroup),
            ProtobufField(number: 3, wireType: .endGroup),
            ProtobufField(number: 4, wireType: .fixed32),
        ])
        XCTAssertTrue(reader.isAtEnd)
    }
}
