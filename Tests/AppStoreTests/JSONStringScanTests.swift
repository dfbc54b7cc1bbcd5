import AppStore
import XCTest

/// The purpose-built decoder skips plain string bytes eight at a time; a byte it must look at
/// (quote, backslash, control character, non-ASCII) is found at every offset within and across
/// those words, and the document still reads as `JSONSerialization` reads it (or is declined).
final class JSONStringScanTests: XCTestCase {
    private func document(_ string: [UInt8]) -> [UInt8] {
        Array(#"{"k":""#.utf8) + string + Array(#"","n":1}"#.utf8)
    }

    func testEscapesAtEveryOffsetAreReadAlike() {
        for escape in [#"\""#, #"\\"#, #"\n"#, #"\/"#, #"\t"#] {
            for length in 0..<26 {
                for position in 0...length {
                    var string = Array(String(repeating: "a", count: length).utf8)
                    string.insert(contentsOf: Array(escape.utf8), at: position)
                    let bytes = document(string)
                    XCTAssertNil(AppleJSONDifferential.difference(bytes), "\(escape) at \(position) of \(length)")
                    XCTAssertTrue(AppleJSONDifferential.isReadByPurposeBuiltDecoder(bytes),
                                  "\(escape) at \(position) of \(length)")
                }
            }
        }
    }

    func testControlAndNonASCIIBytesAtEveryOffsetAreDeclined() {
        for special: [UInt8] in [[0x01], [0x1F], [0x0A], Array("é".utf8), [0xFF]] {
            for length in 0..<26 {
                for position in 0...length {
                    var string = Array(String(repeating: "~", count: length).utf8)
                    string.insert(contentsOf: special, at: position)
                    XCTAssertFalse(AppleJSONDifferential.isReadByPurposeBuiltDecoder(document(string)),
                                   "\(special) at \(position) of \(length)")
                }
            }
        }
    }

    func testPlainBytesAtTheWordEdgesAreRead() {
        // 0x20 and 0x7F are the plain bytes next to the ones the word test must catch.
        for plain: UInt8 in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F] {
            for length in 1..<26 {
                let bytes = document([UInt8](repeating: plain, count: length))
                XCTAssertNil(AppleJSONDifferential.difference(bytes), "\(plain) x \(length)")
                XCTAssertTrue(AppleJSONDifferential.isReadByPurposeBuiltDecoder(bytes), "\(plain) x \(length)")
            }
        }
    }

    func testAnUnterminatedStringIsDeclinedAtAnyLength() {
        for length in 0..<26 {
            let bytes = Array(#"{"k":""#.utf8) + [UInt8](repeating: 0x61, count: length)
            XCTAssertFalse(AppleJSONDifferential.isReadByPurposeBuiltDecoder(bytes), "length \(length)")
        }
    }
}
