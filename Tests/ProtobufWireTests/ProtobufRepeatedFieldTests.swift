import ProtobufWire
import XCTest

/// Repeated scalars may arrive packed or unpacked, or both in one message; the decoder must
/// accept each and append in wire order.
final class ProtobufRepeatedFieldTests: XCTestCase {
    func testPackedVarints() throws {
        let message = try Scalars(protobufBytes: hex("7a 04 01 02 ac 02"))
        XCTAssertEqual(message.int64s, [1, 2, 300])
    }

    func testUnpackedVarints() throws {
        // Output of Python protobuf parsing checked: Scalars.FromString(7801780278ac02).int64s
        // == [1, 2, 300].
        let message = try Scalars(protobufBytes: hex("78 01  78 02  78 ac 02"))
        XCTAssertEqual(message.int64s, [1, 2, 300])
    }

    func testPackedAndUnpackedMixedAppendInOrder() throws {
        let message = try Scalars(protobufBytes: hex("78 01  7a 02 02 03  78 04  7a 00"))
        XCTAssertEqual(message.int64s, [1, 2, 3, 4])
    }

    func testPackedNegativeInt32s() throws {
        let message = try Scalars(protobufBytes: hex("8201 0b feffffffffffffffff01 05  8001 7f"))
        XCTAssertEqual(message.int32s, [-2, 5, 127])
    }

    func testPackedFixedWidthElements() throws {
        var reader = ProtobufReader(hex("0a 08 01000000 02000000")[...])
        let field = try XCTUnwrap(reader.nextField())
        XCTAssertEqual(field, ProtobufField(number: 1, wireType: .lengthDelimited))
        var values: [UInt32] = []
        try reader.readPacked(into: &values) { try $0.readFixed32() }
        XCTAssertEqual(values, [1, 2])
        XCTAssertTrue(reader.isAtEnd)
    }

    func testPackedFixedWidthWithPartialElementFails() {
        var reader = ProtobufReader(hex("0a 06 01000000 0200")[...])
        XCTAssertNoThrow(try reader.nextField())
        var values: [UInt32] = []
        XCTAssertThrowsError(try reader.readPacked(into: &values) { try $0.readFixed32() })
    }

    func testRepeatedMessagesIncludingEmptyOnes() throws {
        var message = Scalars()
        message.children = [Nested(), Nested(name: "b", values: [7]), Nested()]
        XCTAssertEqual(hexString(message.protobufBytes()), "7200" + "7206" + "0a0162" + "1a0107" + "7200")
        XCTAssertEqual(try Scalars(protobufBytes: message.protobufBytes()), message)
    }
}
