import ProtobufWire
import XCTest

/// The schema-driven codec against the hand-written one it stands in for: ``Scalars`` (written
/// by hand) and ``SchemaScalars`` (the same fields as a schema) must agree byte for byte and read
/// each other's bytes.
final class ProtobufSchemaMessageTests: XCTestCase {
    private var everyField: Scalars {
        var scalars = Scalars()
        scalars.int64Value = -3
        scalars.int32Value = -21_007
        scalars.boolValue = true
        scalars.enumValue = 7
        scalars.stringValue = "héllo"
        scalars.nested = Nested(name: "n", count: 2)
        scalars.children = [Nested(name: "a"), Nested()]
        return scalars
    }

    private var everyFieldAsSchema: SchemaScalars {
        SchemaScalars(
            int64Value: -3, int32Value: -21_007, boolValue: true, enumValue: SchemaColor(rawValue: 7),
            stringValue: "héllo", nested: Nested(name: "n", count: 2), children: [Nested(name: "a"), Nested()])
    }

    func testEncodesAsTheHandWrittenCodec() {
        XCTAssertEqual(everyFieldAsSchema.protobufBytes(), everyField.protobufBytes())
        XCTAssertEqual(SchemaScalars().protobufBytes(), [])
    }

    func testDecodesTheHandWrittenCodecsBytes() throws {
        XCTAssertEqual(try SchemaScalars(protobufBytes: everyField.protobufBytes()), everyFieldAsSchema)
    }

    func testPresentEmptyMessageIsWrittenAndRead() throws {
        var message = SchemaScalars()
        message.nested = Nested()
        XCTAssertEqual(message.protobufBytes(), [0x6A, 0x00])
        XCTAssertEqual(try SchemaScalars(protobufBytes: [0x6A, 0x00]).nested, Nested())
    }

    func testLastValueWinsAndRepeatedAppends() throws {
        // string 9 = "a", children 14 = {name "x"}, string 9 = "b", children 14 = {}
        let bytes: [UInt8] = [0x4A, 0x01, 0x61, 0x72, 0x03, 0x0A, 0x01, 0x78, 0x4A, 0x01, 0x62, 0x72, 0x00]
        let message = try SchemaScalars(protobufBytes: bytes)
        XCTAssertEqual(message.stringValue, "b")
        XCTAssertEqual(message.children, [Nested(name: "x"), Nested()])
    }

    func testUnknownFieldsAndKnownNumbersWithAnotherWireTypeAreSkipped() throws {
        // field 99 varint 1; field 1 (int64) as fixed32; field 9 (string) as varint; then int64 1 = 5
        let bytes: [UInt8] = [0x98, 0x06, 0x01, 0x0D, 1, 2, 3, 4, 0x48, 0x01, 0x08, 0x05]
        XCTAssertEqual(try SchemaScalars(protobufBytes: bytes), SchemaScalars(int64Value: 5))
    }

    func testUnknownEnumNumbersSurvive() throws {
        let message = try SchemaScalars(protobufBytes: [0x40, 0x63])
        XCTAssertEqual(message.enumValue.rawValue, 99)
        XCTAssertEqual(message.protobufBytes(), [0x40, 0x63])
    }

    func testMalformedInputThrows() {
        XCTAssertThrowsError(try SchemaScalars(protobufBytes: [0x4A, 0x02, 0xC3, 0x28])) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .invalidUTF8)
        }
        XCTAssertThrowsError(try SchemaScalars(protobufBytes: [0x6A, 0x05, 0x0A])) { error in
            XCTAssertEqual((error as? ProtobufDecodingError)?.code, .lengthPastEnd)
        }
    }
}

/// An open enum for ``SchemaScalars/enumValue``.
struct SchemaColor: ProtobufEnum {
    var rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }
}

/// The fields of `wiretest.Scalars` that ``ProtobufSchemaField`` has kinds for, as a schema.
struct SchemaScalars: ProtobufSchemaMessage {
    var int64Value: Int64 = 0
    var int32Value: Int32 = 0
    var boolValue = false
    var enumValue = SchemaColor(rawValue: 0)
    var stringValue = ""
    var nested: Nested?
    var children: [Nested] = []

    init() {}

    init(int64Value: Int64 = 0, int32Value: Int32 = 0, boolValue: Bool = false,
         enumValue: SchemaColor = SchemaColor(rawValue: 0), stringValue: String = "", nested: Nested? = nil,
         children: [Nested] = []) {
        self.int64Value = int64Value
        self.int32Value = int32Value
        self.boolValue = boolValue
        self.enumValue = enumValue
        self.stringValue = stringValue
        self.nested = nested
        self.children = children
    }

    static let schema: [ProtobufSchemaField<Self>] = [
        .int64(1, \.int64Value),
        .int32(2, \.int32Value),
        .bool(7, \.boolValue),
        .enumeration(8, \.enumValue),
        .string(9, \.stringValue),
        .message(13, \.nested),
        .repeatedMessage(14, \.children),
    ]
}
