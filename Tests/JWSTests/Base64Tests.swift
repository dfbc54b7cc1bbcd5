import Foundation
@testable import JWS
import XCTest

/// The strict base64 decoders agree with Foundation on every valid text and refuse every text
/// that is not the one spelling of its bytes.
final class Base64Tests: XCTestCase {
    /// Foundation's base64url spelling of `bytes`, unpadded.
    private func urlText(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    func testEveryLengthDecodesAsFoundationEncoded() {
        var generator = SeededGenerator(for: "Base64Tests.testEveryLengthDecodesAsFoundationEncoded")
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = urlText(bytes)
            XCTAssertEqual(Base64.decodeURL(ArraySlice(text.utf8)), bytes, "length \(length)")
            XCTAssertEqual(Base64.decodeStandard(Data(bytes).base64EncodedString()), bytes, "length \(length)")
        }
    }

    func testAnyForeignCharacterAnywhereIsRefused() {
        let text = Array(urlText(Array(0..<48)).utf8)  // 64 characters, no tail
        for position in text.indices {
            for foreign in ["=", "+", "/", " ", "\n", ".", "\u{80}"].flatMap({ Array($0.utf8) }) {
                var bad = text
                bad[position] = foreign
                XCTAssertNil(Base64.decodeURL(ArraySlice(bad)), "\(foreign) at \(position)")
            }
        }
    }

    func testTailsMustHaveZeroLeftoverBitsAndAtLeastTwoCharacters() {
        XCTAssertEqual(Base64.decodeURL(ArraySlice("QQ".utf8)), [0x41])
        XCTAssertNil(Base64.decodeURL(ArraySlice("QR".utf8)), "2 characters leave 4 bits, which must be 0")
        XCTAssertEqual(Base64.decodeURL(ArraySlice("QUE".utf8)), [0x41, 0x41])
        XCTAssertNil(Base64.decodeURL(ArraySlice("QUF".utf8)), "3 characters leave 2 bits, which must be 0")
        XCTAssertNil(Base64.decodeURL(ArraySlice("QUFBQ".utf8)), "a final group of one character")
        XCTAssertNil(Base64.decodeStandard("QUE"), "standard base64 is padded")
        XCTAssertNil(Base64.decodeStandard("QR=="))
        XCTAssertEqual(Base64.decodeStandard("QUE="), [0x41, 0x41])
    }
}
