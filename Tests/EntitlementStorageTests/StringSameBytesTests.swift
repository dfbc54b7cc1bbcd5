@testable import SQLiteStore
@testable import StorageCore
import XCTest

/// ``Swift/String/hasSameBytes(as:)`` is byte identity: what product names, history pointers and
/// the `user_facts` string table compare with.
final class StringSameBytesTests: XCTestCase {
    func testCanonicallyEquivalentSpellingsAreDifferentBytes() {
        XCTAssertTrue("K.monthly" == "\u{212A}.monthly")
        XCTAssertFalse("K.monthly".hasSameBytes(as: "\u{212A}.monthly"))
        XCTAssertFalse("caf\u{E9}".hasSameBytes(as: "cafe\u{301}"))
        XCTAssertFalse("cafe\u{301}".hasSameBytes(as: "caf\u{E9}"))
    }

    func testEqualBytesShortLongAndEmpty() {
        let long = String(repeating: "pro.monthly.", count: 10)
        XCTAssertTrue("".hasSameBytes(as: ""))
        XCTAssertTrue("1000000123456789".hasSameBytes(as: "1000000" + "123456789"))
        XCTAssertTrue(long.hasSameBytes(as: String(long.utf8.map { Character(Unicode.Scalar($0)) })))
        XCTAssertTrue(String(long.dropFirst(12)).hasSameBytes(as: String(repeating: "pro.monthly.", count: 9)))
        XCTAssertFalse("".hasSameBytes(as: "a"))
        XCTAssertFalse("pro.monthly".hasSameBytes(as: "pro.monthl"))
        XCTAssertFalse(long.hasSameBytes(as: long.dropLast() + "!"))
    }

    /// Every pair of short strings over a few scalars (ASCII, composed and decomposed forms),
    /// against comparing the byte arrays.
    func testAgreesWithComparingByteArrays() {
        let pieces = ["", "a", "K", "\u{212A}", "\u{E9}", "e\u{301}", "0123456789abcdef"]
        var strings: [String] = []
        for first in pieces { for second in pieces { for third in pieces { strings.append(first + second + third) } } }
        for lhs in strings {
            for rhs in strings {
                XCTAssertEqual(lhs.hasSameBytes(as: rhs), Array(lhs.utf8) == Array(rhs.utf8), "\(lhs) vs \(rhs)")
            }
        }
    }

    /// One byte different at each position of ids 1-40 bytes long: the eight-byte words and the
    /// byte-wise tail each see a difference in their first, middle and last byte.
    func testADifferenceAtAnyPositionIsSeen() {
        for length in 1...40 {
            let id = String(String("1000000123456789abcdefghijklmnopqrstuvwxyzABCDEF".prefix(length)))
            XCTAssertTrue(id.hasSameBytes(as: String(id.utf8.map { Character(Unicode.Scalar($0)) })))
            for position in 0..<length {
                var bytes = Array(id.utf8)
                bytes[position] ^= 0x01
                XCTAssertFalse(id.hasSameBytes(as: String(decoding: bytes, as: UTF8.self)), "\(length) at \(position)")
                let other = bytes
                XCTAssertFalse(other.withUnsafeBytes { id.hasSameBytes(as: $0) }, "\(length) at \(position), raw")
            }
        }
    }
}
