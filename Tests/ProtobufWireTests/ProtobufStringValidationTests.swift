import ProtobufWire
import XCTest

/// `readString` decodes with repair and compares the bytes instead of calling
/// `String(validating:)`; these hold it to exactly that function's verdict and string.
final class ProtobufStringValidationTests: XCTestCase {
    /// One length-delimited field (number 1) holding `content`, read back with `readString`.
    private func read(_ content: [UInt8]) -> String? {
        var reader = ProtobufReader(([0x0a, UInt8(content.count)] + content)[...])
        _ = try? reader.nextField()
        return try? reader.readString()
    }

    private func assertSameVerdict(_ content: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(read(content), String(validating: content, as: UTF8.self),
                       "bytes \(content.map { String($0, radix: 16) })", file: file, line: line)
    }

    func testEveryOneAndTwoByteStringGetsTheValidatingVerdict() {
        assertSameVerdict([])
        for first in 0...255 {
            assertSameVerdict([UInt8(first)])
            for second in 0...255 { assertSameVerdict([UInt8(first), UInt8(second)]) }
        }
    }

    func testLongerStringsAroundTheEdgesOfValidUTF8() {
        // Lead bytes of 3- and 4-byte sequences with every continuation-range edge: overlong
        // forms, surrogates, the last code point, past it, truncated sequences, and the bytes
        // of U+FFFD itself (valid, so kept as they are).
        let leads: [UInt8] = [0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff]
        let continuations: [UInt8] = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0]
        for lead in leads {
            for second in continuations {
                assertSameVerdict([lead, second])
                for third in continuations {
                    assertSameVerdict([lead, second, third])
                    assertSameVerdict([0x61, lead, second, third, 0x62])
                    for fourth in continuations { assertSameVerdict([lead, second, third, fourth]) }
                }
            }
        }
        assertSameVerdict([0xef, 0xbf, 0xbd])
        assertSameVerdict(Array("pro.monthly, ünïcødé and 😀".utf8))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            assertSameVerdict((0..<Int.random(in: 1...12, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            })
        }
    }

    /// Strings longer than the 32-byte steps of the comparison, with one byte changed at every
    /// position (so a difference in each word of a step and in the tail is met).
    func testLongStringsWithOneChangedByteAnywhere() {
        let text = Array("receipt ünïcødé 😀 and plain ASCII to pad it out past several steps.".utf8)
        for length in [31, 32, 33, 64, 71] {
            let content = Array(text[..<length])
            assertSameVerdict(content)
            for position in 0..<length {
                for byte: UInt8 in [0x00, 0x41, 0x80, 0xbf, 0xc3, 0xef, 0xff] {
                    var changed = content
                    changed[position] = byte
                    assertSameVerdict(changed)
                }
            }
        }
    }
}
