import ProtobufWire
import XCTest

/// Our encoder's output must be byte-for-byte what Google's protobuf produces, and our decoder
/// must read it back. The golden hex was produced once with the grpcio-tools Python package
/// (protobuf 7.36.2): `python -m grpc_tools.protoc --python_out=.` on the schema in
/// WireTestMessages.swift, then `Scalars(...).SerializeToString().hex()` with the values below.
final class ProtobufGoldenTests: XCTestCase {
    static let everyField: Scalars = {
        var message = Scalars()
        message.int64Value = -2
        message.int32Value = -3
        message.uint64Value = .max
        message.uint32Value = .max
        message.sint64Value = .min
        message.sint32Value = -1
        message.boolValue = true
        message.enumValue = 7
        message.stringValue = "héllo"
        message.bytesValue = [0x00, 0xFF]
        message.fixed32Value = 0xDEAD_BEEF
        message.fixed64Value = 0x0102_0304_0506_0708
        message.nested = Nested(name: "n", count: 300, values: [1, 2])
        message.children = [Nested(), Nested(name: "c")]
        message.int64s = [1, -1, 300]
        message.int32s = [-2, 5]
        return message
    }()

    static let everyFieldGolden = hex("""
        08 feffffffffffffffff01  10 fdffffffffffffffff01  18 ffffffffffffffffff01  20 ffffffff0f
        28 ffffffffffffffffff01  30 01  38 01  40 07  4a 06 68c3a96c6c6f  52 02 00ff
        5d efbeadde  61 0807060504030201  6a 0a 0a016e 10ac02 1a020102  72 00  72 03 0a0163
        7a 0d 01 ffffffffffffffffff01 ac02  8201 0b feffffffffffffffff01 05
        """)

    func testEncodingMatchesPythonProtobuf() {
        XCTAssertEqual(hexString(Self.everyField.protobufBytes()), hexString(Self.everyFieldGolden))
    }

    func testDecodingPythonProtobufOutput() throws {
        XCTAssertEqual(try Scalars(protobufBytes: Self.everyFieldGolden), Self.everyField)
    }

    func testDefaultMessageEncodesToNoBytes() throws {
        XCTAssertEqual(Scalars().protobufBytes(), [])
        XCTAssertEqual(try Scalars(protobufBytes: []), Scalars())
    }
}
