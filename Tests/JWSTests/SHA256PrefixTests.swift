@testable import JWS
import XCTest

/// A digest continued from a header's hashed blocks is SHA-256 of the whole message, and a
/// message that does not start with those blocks is declined, never hashed from the wrong state.
final class SHA256PrefixTests: XCTestCase {
    private func digest(_ prefix: SHA256Prefix, _ message: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = out.withUnsafeMutableBufferPointer { prefix.digest(of: message[...], into: $0) }
        return ok ? out : nil
    }

    func testContinuedDigestsEqualWholeDigestsAtEveryBlockBoundary() throws {
        var generator = SeededGenerator(
            for: "SHA256PrefixTests.testContinuedDigestsEqualWholeDigestsAtEveryBlockBoundary")
        for headerLength in [0, 1, 63, 64, 65, 127, 128, 129, 500, 5_000] {
            let header = (0..<headerLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let prefix = try XCTUnwrap(SHA256Prefix(header[...]))
            for restLength in [0, 1, 55, 56, 64, 1_000] {
                let message = header + (0..<restLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                XCTAssertEqual(digest(prefix, message), SHA256.hash(message), "\(headerLength) + \(restLength)")
            }
        }
    }

    func testAMessageWithAnotherStartIsDeclined() throws {
        let header = [UInt8](repeating: 0x41, count: 200)
        let prefix = try XCTUnwrap(SHA256Prefix(header[...]))
        var other = header + Array(".payload".utf8)
        other[100] = 0x42
        XCTAssertNil(digest(prefix, other), "a byte inside the hashed blocks differs")
        XCTAssertNil(digest(prefix, Array(header.prefix(100))), "shorter than the hashed blocks")
        var tail = header + Array(".payload".utf8)
        tail[195] = 0x42  // past the last whole block (192): hashed per message, so still exact
        XCTAssertEqual(digest(prefix, tail), SHA256.hash(tail))
    }
}
