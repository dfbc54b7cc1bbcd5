import ProtobufWire
import XCTest

final class ProtobufWriterTests: XCTestCase {
    private func varint(_ value: UInt64) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeVarint(value)
        return writer.bytes
    }

    func testVarintEncodingAndSize() {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
            (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
            (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(varint(value), expected, "\(value)")
            XCTAssertEqual(ProtobufWriter.varintSize(value), expected.count, "\(value)")
        }
    }

    func testDefaultsAreNotWritten() {
        var writer = ProtobufWriter()
        writer.writeInt64(0, field: 1)
        writer.writeInt32(0, field: 2)
        writer.writeUInt64(0, field: 3)
        writer.writeUInt32(0, field: 4)
        writer.writeSInt64(0, field: 5)
        writer.writeSInt32(0, field: 6)
        writer.writeBool(false, field: 7)
        writer.writeEnum(Int32(0), field: 8)
        writer.writeString("", field: 9)
        writer.writeBytes([UInt8](), field: 10)
        writer.writeFixed32(0, field: 11)
        writer.writeFixed64(0, field: 12)
        writer.writePackedVarints([UInt64](), field: 13)
        XCTAssertEqual(writer.bytes, [])
    }

    func testNegativeInt32IsTenByteVarint() {
        var writer = ProtobufWriter()
        writer.writeInt32(-1, field: 1)
        XCTAssertEqual(writer.bytes, [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
    }

    func testZigzag() {
        var writer = ProtobufWriter()
        writer.writeSInt32(-1, field: 1)
        writer.writeSInt32(1, field: 1)
        writer.writeSInt64(-2, field: 1)
        XCTAssertEqual(writer.bytes, [0x08, 0x01, 0x08, 0x02, 0x08, 0x03])
    }

    func testFixedWidthIsLittleEndian() {
        var writer = ProtobufWriter()
        writer.writeFixed32(0x0102_0304, field: 1)
        writer.writeFixed64(0x0102_0304_0506_0708, field: 2)
        XCTAssertEqual(hexString(writer.bytes), "0d04030201" + "110807060504030201")
    }

    func testLargeFieldNumberTag() {
        var writer = ProtobufWriter()
        writer.writeBool(true, field: ProtobufField.maximumNumber)
        XCTAssertEqual(hexString(writer.bytes), "f8ffffff0f01")
    }

    func testEmptyNestedMessageIsStillWritten() {
        var writer = ProtobufWriter()
        writer.writeMessage(Nested(), field: 14)
        XCTAssertEqual(writer.bytes, [0x72, 0x00])
    }

    /// Nested content of 127, 128 and 16,384 bytes: the one-byte length reservation must widen
    /// to two and three bytes without disturbing what came before or after.
    func testNestedLengthPrefixWidens() throws {
        for nameLength in [125, 126, 16_380, 16_381, 16_382] {
            var message = Scalars()
            message.int64Value = 1
            message.nested = Nested(name: String(repeating: "x", count: nameLength))
            message.boolValue = true
            let bytes = message.protobufBytes()
            let content = 1 + ProtobufWriter.varintSize(UInt64(nameLength)) + nameLength
            XCTAssertEqual(bytes.count, 2 + 2 + 1 + ProtobufWriter.varintSize(UInt64(content)) + content)
            XCTAssertEqual(try Scalars(protobufBytes: bytes), message, "name length \(nameLength)")
        }
    }

    func testWriterAppendsAfterCallerPrefix() throws {
        var writer = ProtobufWriter(reservingCapacity: 64)
        writer.bytes = [0, 0, 0, 0, 0]
        Nested(name: "n").encode(to: &writer)
        XCTAssertEqual(writer.bytes, [0, 0, 0, 0, 0, 0x0A, 0x01, 0x6E])
    }

    /// Varints take an inlined one-byte path below 0x80 and an out-of-line loop from 0x80 up.
    /// Every tag length (1-5 bytes) against every value length (1-10 bytes), each on both sides
    /// of its length boundary, must match the spec's byte-at-a-time encoding.
    func testTagAndValueLengthsAgreeWithByteAtATimeEncoding() {
        let fields = [1, 15, 16, 2_047, 2_048, 262_143, 262_144, ProtobufField.maximumNumber]
        let values = (0..<64).flatMap { [UInt64(1) << UInt64($0), (UInt64(1) << UInt64($0)) &- 1] }
        for field in fields {
            for (shift, value) in values.enumerated() where value != 0 {
                var writer = ProtobufWriter()
                writer.writeUInt64(value, field: field)
                writer.writeFixed32(0x0A0B_0C0D, field: field)
                let text = String(repeating: "s", count: shift * 2 + 1)
                writer.writeString(text, field: field)
                var expected = specVarint(UInt64(field) << 3) + specVarint(value)
                expected += specVarint(UInt64(field) << 3 | 5) + [0x0D, 0x0C, 0x0B, 0x0A]
                expected += specVarint(UInt64(field) << 3 | 2) + specVarint(UInt64(text.utf8.count))
                expected += [UInt8](repeating: 0x73, count: text.utf8.count)
                XCTAssertEqual(writer.bytes, expected, "field \(field), value \(value)")
            }
        }
    }

    /// The varint rule written out one byte at a time, as the spec states it.
    private func specVarint(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var remaining = value
        repeat {
            let low = UInt8(remaining & 0x7F)
            remaining >>= 7
            out.append(remaining == 0 ? low : low | 0x80)
        } while remaining != 0
        return out
    }
}
