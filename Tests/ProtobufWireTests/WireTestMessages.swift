import ProtobufWire

// Test-only messages that exercise every wire type. Their schema, compiled with
// `python -m grpc_tools.protoc` to produce the golden bytes in ProtobufGoldenTests:
//
//   syntax = "proto3";
//   package wiretest;
//   message Nested { string name = 1; int64 count = 2; repeated int64 values = 3; }
//   message Scalars {
//     int64 int64_value = 1; int32 int32_value = 2; uint64 uint64_value = 3;
//     uint32 uint32_value = 4; sint64 sint64_value = 5; sint32 sint32_value = 6;
//     bool bool_value = 7; int32 enum_value = 8; string string_value = 9; bytes bytes_value = 10;
//     fixed32 fixed32_value = 11; fixed64 fixed64_value = 12; Nested nested = 13;
//     repeated Nested children = 14; repeated int64 int64s = 15; repeated int32 int32s = 16;
//   }

/// `wiretest.Nested`: a small message with a repeated scalar, for merge and packed tests.
struct Nested: ProtobufMessage {
    var name = ""
    var count: Int64 = 0
    var values: [Int64] = []

    init() {}

    init(name: String = "", count: Int64 = 0, values: [Int64] = []) {
        self.name = name
        self.count = count
        self.values = values
    }

    init(protobufBytes: ArraySlice<UInt8>) throws {
        var reader = ProtobufReader(protobufBytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): name = try reader.readString()
            case (2, .varint): count = try reader.readInt64()
            case (3, .varint): values.append(try reader.readInt64())
            case (3, .lengthDelimited): try reader.readPacked(into: &values) { try $0.readInt64() }
            default: try reader.skip(field)
            }
        }
    }

    func encode(to writer: inout ProtobufWriter) {
        writer.writeString(name, field: 1)
        writer.writeInt64(count, field: 2)
        writer.writePackedVarints(values.lazy.map { UInt64(bitPattern: $0) }, field: 3)
    }
}

/// `wiretest.Scalars`: one field of every scalar type, a singular and a repeated message, and
/// packed repeated int64 and int32.
struct Scalars: ProtobufMessage {
    var int64Value: Int64 = 0
    var int32Value: Int32 = 0
    var uint64Value: UInt64 = 0
    var uint32Value: UInt32 = 0
    var sint64Value: Int64 = 0
    var sint32Value: Int32 = 0
    var boolValue = false
    var enumValue: Int32 = 0
    var stringValue = ""
    var bytesValue: [UInt8] = []
    var fixed32Value: UInt32 = 0
    var fixed64Value: UInt64 = 0
    var nested: Nested?
    var children: [Nested] = []
    var int64s: [Int64] = []
    var int32s: [Int32] = []

    init() {}

    init(protobufBytes: ArraySlice<UInt8>) throws {
        var reader = ProtobufReader(protobufBytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): int64Value = try reader.readInt64()
            case (2, .varint): int32Value = try reader.readInt32()
            case (3, .varint): uint64Value = try reader.readUInt64()
            case (4, .varint): uint32Value = try reader.readUInt32()
            case (5, .varint): sint64Value = try reader.readSInt64()
            case (6, .varint): sint32Value = try reader.readSInt32()
            case (7, .varint): boolValue = try reader.readBool()
            case (8, .varint): enumValue = try reader.readEnum()
            case (9, .lengthDelimited): stringValue = try reader.readString()
            case (10, .lengthDelimited): bytesValue = try reader.readBytes()
            case (11, .fixed32): fixed32Value = try reader.readFixed32()
            case (12, .fixed64): fixed64Value = try reader.readFixed64()
            case (13, .lengthDelimited):
                if nested == nil {
                    nested = try reader.readMessage()
                } else {
                    try reader.mergeMessage(into: &nested!)
                }
            case (14, .lengthDelimited): children.append(try reader.readMessage())
            case (15, .varint): int64s.append(try reader.readInt64())
            case (15, .lengthDelimited): try reader.readPacked(into: &int64s) { try $0.readInt64() }
            case (16, .varint): int32s.append(try reader.readInt32())
            case (16, .lengthDelimited): try reader.readPacked(into: &int32s) { try $0.readInt32() }
            default: try reader.skip(field)
            }
        }
    }

    func encode(to writer: inout ProtobufWriter) {
        writer.writeInt64(int64Value, field: 1)
        writer.writeInt32(int32Value, field: 2)
        writer.writeUInt64(uint64Value, field: 3)
        writer.writeUInt32(uint32Value, field: 4)
        writer.writeSInt64(sint64Value, field: 5)
        writer.writeSInt32(sint32Value, field: 6)
        writer.writeBool(boolValue, field: 7)
        writer.writeEnum(enumValue, field: 8)
        writer.writeString(stringValue, field: 9)
        writer.writeBytes(bytesValue, field: 10)
        writer.writeFixed32(fixed32Value, field: 11)
        writer.writeFixed64(fixed64Value, field: 12)
        if let nested {
            writer.writeMessage(nested, field: 13)
        }
        for child in children {
            writer.writeMessage(child, field: 14)
        }
        writer.writePackedVarints(int64s.lazy.map { UInt64(bitPattern: $0) }, field: 15)
        writer.writePackedVarints(int32s.lazy.map { UInt64(bitPattern: Int64($0)) }, field: 16)
    }
}

/// Bytes from a hex string; spaces are ignored so test vectors can be grouped by field.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// Lower-case hex of `bytes`, for readable assertion failures.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        .joined()
}
