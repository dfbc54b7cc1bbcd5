@testable import AppStore
import XCTest

/// ``AppleJSONParser/firstSpecialByte(_:)`` is exactly the first byte a string scan must stop
/// at, whatever the bytes around it, since the scan jumps straight there.
final class JSONSpecialByteTests: XCTestCase {
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte > 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// The first special byte of a word, if any, against the word's lowest flagged byte.
    static func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let first = bytes.firstIndex(where: isSpecial)
        XCTAssertEqual(AppleJSONParser.firstSpecialByte(word(bytes)), first ?? 8, "\(bytes)", file: file, line: line)
        XCTAssertEqual(AppleJSONParser.hasSpecialByte(word(bytes)), first != nil, "\(bytes)", file: file, line: line)
    }

    func testEveryByteValueAtEveryPositionAmongPlainBytes() {
        for position in 0..<8 {
            for value in 0...255 {
                for fill: UInt8 in [0x20, 0x61, 0x7F, 0x21, 0x5D] {
                    var bytes = [UInt8](repeating: fill, count: 8)
                    bytes[position] = UInt8(value)
                    Self.check(bytes)
                }
            }
        }
    }

    /// Two chosen bytes anywhere, over the values next to each boundary: a byte that borrows
    /// (below 0x20, a quote, a backslash) must not hide or invent one in front of it.
    func testPairsOfBoundaryBytesAtEveryTwoPositions() {
        let values: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xA2,
                               0xDC, 0xFF]
        for first in 0..<8 {
            for second in 0..<8 where second != first {
                for a in values {
                    for b in values {
                        var bytes = [UInt8](repeating: 0x61, count: 8)
                        bytes[first] = a
                        bytes[second] = b
                        Self.check(bytes)
                    }
                }
            }
        }
    }
}
