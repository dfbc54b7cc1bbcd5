import JWS
import XCTest

/// SHA-256 hashes contiguous bytes in place and other collections through a copy: both give
/// the standard digests (FIPS 180-2 examples) and agree on long input.
final class SHA256Tests: XCTestCase {
    func testKnownDigestsWhetherTheBytesAreContiguousOrNot() {
        let examples = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        for (text, digest) in examples {
            XCTAssertEqual(SHA256.hexHash(text.utf8), digest, "String UTF-8 (contiguous): \(text)")
            XCTAssertEqual(SHA256.hexHash(Array(text.utf8)), digest, "array: \(text)")
            XCTAssertEqual(SHA256.hexHash(text.utf8.lazy.map { $0 }), digest, "not contiguous: \(text)")
        }
    }

    func testAReceiptSizedStringHashesAsItsBytes() {
        let receipt = String(repeating: "MIIT0QYJKoZIhvcNAQcCoIITwjCCE74CAQExCzAJBgUrDgMCGgUAMIIDcgYJ", count: 5_000)
        XCTAssertEqual(SHA256.hash(receipt.utf8), SHA256.hash(receipt.utf8.lazy.map { $0 }))
        XCTAssertNotEqual(SHA256.hash(receipt.utf8), SHA256.hash((receipt + "A").utf8))
    }
}
