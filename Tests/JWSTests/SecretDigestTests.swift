import JWS
import XCTest

final class SecretDigestTests: XCTestCase {
    /// The rule: equal non-empty bytes match; anything else (including empty vs empty) does not.
    func testMatchesOnlyEqualNonEmptySecrets() {
        let table: [(String, String, Bool)] = [
            ("secret", "secret", true), ("x", "x", true),
            (String(repeating: "a", count: 4096), String(repeating: "a", count: 4096), true),
            ("secret", "secreT", false), ("secret", "Secret", false),
            ("secret", "secret ", false), ("secret", "secre", false),
            ("é", "e\u{301}", false), ("", "x", false), ("x", "", false),
            ("", "", false),
            (String(repeating: "a", count: 256), "", false),
        ]
        for (a, b, want) in table {
            XCTAssertEqual(constantTimeEquals(a, b), want, "\(a.debugDescription) vs \(b.debugDescription)")
            XCTAssertEqual(constantTimeEquals(b, a), want, "\(b.debugDescription) vs \(a.debugDescription)")
            XCTAssertEqual(SecretDigest(Array(a.utf8)).matches(SecretDigest(b)), want)
        }
    }

    func testBytesAndStringsOfTheSameSecretMatch() {
        let token = "tok-\u{1F511}-42"
        XCTAssertTrue(SecretDigest(Array(token.utf8)[...]).matches(SecretDigest(token)))
    }
}
