import ProtobufWire
import XCTest

/// Every malformed input must throw a ``ProtobufDecodingError`` with the right code: the
/// decoder reads network bytes, so a trap here would be a remote crash.
final class ProtobufMalformedInputTests: XCTestCase {
    private func assertFails(
        _ hexInput: String, _ code: ProtobufDecodingError.Code,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try Scalars(protobufBytes: hex(hexInput)), file: file, line: line) { error in
            guard let error = error as? ProtobufDecodingError else {
                return XCTFail("unexpected error \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        }
    }

    func testTruncatedVarintValue() {
        assertFails("08 80", .truncated)
        assertFails("08 ff ff ff", .truncated)
    }

    func testTruncatedTag() {
        assertFails("80", .truncated)
    }

    func testElevenByteVarint() {
        assertFails("08 ff ff ff ff ff ff ff ff ff 81 01", .malformedVarint)
        assertFails("08 80 80 80 80 80 80 80 80 80 80 00", .malformedVarint)
    }

    func testTenthByteOverflowing64Bits() {
        assertFails("08 ff ff ff ff ff ff ff ff ff 02", .malformedVarint)
    }

    func testLengthPastEnd() {
        assertFails("4a 05 61 62", .lengthPastEnd)
        assertFails("52 01", .lengthPastEnd)
        // A length near 2^64 must fail cleanly, not trap converting to Int or try to allocate.
        assertFails("4a ff ff ff ff ff ff ff ff ff 01", .lengthPastEnd)
        assertFails("4a ff ff ff ff ff ff ff 7f", .lengthPastEnd)
    }

    func testLengthPastEndOfNestedMessage() {
        // The outer length is fine; the nested string claims more than the nested message holds.
        assertFails("6a 03 0a 05 61 62 63 64", .lengthPastEnd)
    }

    func testInvalidWireTypes() {
        assertFails("0e 00", .invalidWireType)
        assertFails("0f 00", .invalidWireType)
    }

    func testFieldNumberZero() {
        assertFails("00 01", .invalidFieldNumber)
        assertFails("02 00", .invalidFieldNumber)
    }

    func testTagOver32Bits() {
        assertFails("f8 ff ff ff ff 01 01", .invalidFieldNumber)
    }

    func testTruncatedFixed64() {
        assertFails("61 01 02 03 04 05 06 07", .truncated)
        // Also when the field is unknown and only being skipped.
        assertFails("f9 01 01 02 03", .truncated)
    }

    func testTruncatedFixed32() {
        assertFails("5d 01 02 03", .truncated)
        assertFails("fd 01 01", .truncated)
    }

    func testInvalidUTF8InString() {
        assertFails("4a 01 ff", .invalidUTF8)
        assertFails("4a 02 c3 28", .invalidUTF8)
        // An encoded surrogate (U+D800) is not valid UTF-8.
        assertFails("4a 03 ed a0 80", .invalidUTF8)
        // Bytes fields take anything.
        XCTAssertEqual(try Scalars(protobufBytes: hex("52 01 ff")).bytesValue, [0xFF])
    }

    func testTruncatedPackedElement() {
        // A packed run whose last varint is cut off by the run's own length.
        assertFails("7a 02 01 80", .truncated)
    }

    func testErrorMessageSaysWhere() {
        XCTAssertThrowsError(try Scalars(protobufBytes: hex("08 01 4a 05 61"))) { error in
            XCTAssertEqual("\(error)",
                           "ProtobufDecodingError.lengthPastEnd: length 5 exceeds the 1 bytes remaining at byte 3")
        }
    }

    /// Every prefix of a valid message either throws a truncation error or, when it ends on a
    /// field boundary, decodes to exactly the fields it holds (re-encoding gives the prefix back):
    /// a cut message never decodes into values the sender did not write.
    func testEveryTruncationOfAValidMessageFailsCleanly() {
        let bytes = ProtobufGoldenTests.everyFieldGolden
        var decodedPrefixes = 0
        for end in 0..<bytes.count {
            do {
                let decoded = try Scalars(protobufBytes: bytes[0..<end])
                XCTAssertEqual(hexString(decoded.protobufBytes()), hexString(Array(bytes[0..<end])),
                               "prefix of \(end) bytes decoded to other fields")
                decodedPrefixes += 1
            } catch let error as ProtobufDecodingError {
                XCTAssertTrue([.truncated, .lengthPastEnd].contains(error.code),
                              "prefix of \(end) bytes: \(error)")
            } catch {
                XCTFail("prefix of \(end) bytes: unexpected error \(error)")
            }
        }
        // One per field boundary (the empty prefix included): 17 tags start a field in the golden.
        XCTAssertEqual(decodedPrefixes, 17)
    }

    /// Every single-byte corruption of a valid message either decodes or throws.
    func testEverySingleByteCorruptionFailsCleanly() {
        let original = ProtobufGoldenTests.everyFieldGolden
        for index in original.indices {
            for value in [0x00, 0x7F, 0x80, 0xFF, 0x06, 0x0B] as [UInt8] {
                var bytes = original
                bytes[index] = value
                _ = try? Scalars(protobufBytes: bytes)
            }
        }
    }
}
