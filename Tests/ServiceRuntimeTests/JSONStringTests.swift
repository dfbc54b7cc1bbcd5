import ServiceRuntime
import XCTest

final class JSONStringTests: XCTestCase {
    func testEscapesAsProto3JSONPrintersDo() {
        let table: [(String, String)] = [
            ("plain", #""plain""#),
            ("a \"quote\" and \\", #""a \"quote\" and \\""#),
            ("line\nfeed\r\ttab", #""line\nfeed\r\ttab""#),
            ("\u{08}\u{0C}", #""\b\f""#),
            ("\u{01}\u{1F}", #""\u0001\u001f""#),
            ("é 🙂", "\"é 🙂\""),
        ]
        for (value, expected) in table {
            XCTAssertEqual(JSONString.quoted(value), expected, "\(value.debugDescription)")
            var appended = "x"
            JSONString.append(value, to: &appended)
            XCTAssertEqual(appended, "x" + expected)
        }
    }
}
