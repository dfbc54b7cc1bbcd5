import RPCCore
import XCTest

final class PercentEncodingTests: XCTestCase {
    func testTable() {
        let table: [(String, String)] = [
            ("plain text stays", "plain text stays"),
            ("100%", "100%25"),
            ("line\nbreak", "line%0Abreak"),
            ("tab\there", "tab%09here"),
            ("café", "caf%C3%A9"),
            ("日本", "%E6%97%A5%E6%9C%AC"),
            ("~ and space", "~ and space"),
            ("\u{7F}", "%7F"),
        ]
        for (message, encoded) in table {
            XCTAssertEqual(PercentEncoding.encode(message), encoded, message)
            XCTAssertEqual(PercentEncoding.decode(encoded), message, encoded)
        }
    }

    func testMalformedSequencesDecodeLiterally() {
        XCTAssertEqual(PercentEncoding.decode("50%"), "50%")
        XCTAssertEqual(PercentEncoding.decode("%zz"), "%zz")
        XCTAssertEqual(PercentEncoding.decode("%4"), "%4")
    }
}
