import Foundation
import JWS
import XCTest

/// A token whose header and chain the cache remembers still has its own signature checked:
/// every token below gets the same verdict from a verifier that has cached its header (from
/// the first token) and from one without a cache.
final class CachedSignatureTests: XCTestCase {
    private var pki: PKIFixture!
    private var cached: JWSVerifier!
    private var uncached: JWSVerifier!
    private var signer: ES256SigningKey!
    private var header: [UInt8]!

    /// P-256's group order n.
    private static let order: [UInt8] = hex("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    override func setUpWithError() throws {
        pki = try PKIFixture.shared.get()
        cached = JWSVerifier(trustedRoots: pki.trustedRoots)
        uncached = JWSVerifier(trustedRoots: pki.trustedRoots, chainCacheCapacity: 0)
        signer = try ES256SigningKey(pkcs8PEM: Array(pki.leaf.keyPEM.utf8))
        header = try JSONSerialization.data(
            withJSONObject: ["alg": "ES256", "x5c": pki.chain.map { Data($0).base64EncodedString() }],
            options: [.sortedKeys]).map { $0 }
        let first = try token(payload: "first")
        XCTAssertNoThrow(try cached.verify(first, at: PKIFixture.nowMs))
        XCTAssertEqual(cached.cachedEntries.headers, 1)
    }

    private func token(payload: String) throws -> String {
        try signer.signCompact(header: header, payload: Array(#"{"message":"\#(payload)"}"#.utf8))
    }

    /// Both verifiers' verdicts on `compact`: nil for accepted, else the error code.
    private func verdicts(_ compact: String) -> (cached: JWSError.Code?, uncached: JWSError.Code?) {
        func verdict(_ verifier: JWSVerifier) -> JWSError.Code? {
            do {
                _ = try verifier.verify(compact, at: PKIFixture.nowMs)
                return nil
            } catch {
                return error.code
            }
        }
        return (verdict(cached), verdict(uncached))
    }

    /// `compact` with its signature part replaced by raw `signature`.
    private func resigned(_ compact: String, _ signature: [UInt8]) -> String {
        let parts = compact.split(separator: ".")
        return parts[0] + "." + parts[1] + "." + PKIFixture.base64URL(signature)
    }

    private func raw(_ compact: String) -> [UInt8] {
        var text = String(compact.split(separator: ".")[2]).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return [UInt8](Data(base64Encoded: text)!)
    }

    func testValidSignaturesAndBitFlipsGetTheSameVerdictWithAndWithoutTheCache() throws {
        var generator = SeededGenerator(
            for: "CachedSignatureTests.testValidSignaturesAndBitFlipsGetTheSameVerdictWithAndWithoutTheCache")
        for index in 0..<40 {
            let good = try token(payload: "message \(index) \(UInt64.random(in: 0...UInt64.max, using: &generator))")
            let verdict = verdicts(good)
            XCTAssertNil(verdict.cached, "valid token \(index)")
            XCTAssertNil(verdict.uncached, "valid token \(index)")
            var flipped = raw(good)
            let bit = Int.random(in: 0..<512, using: &generator)
            flipped[bit / 8] ^= 1 << (bit % 8)
            let tampered = verdicts(resigned(good, flipped))
            XCTAssertEqual(tampered.cached, .badSignature, "bit \(bit) of token \(index)")
            XCTAssertEqual(tampered.uncached, .badSignature, "bit \(bit) of token \(index)")
            // The same signature over another payload.
            let parts = good.split(separator: ".")
            let otherPayload = PKIFixture.base64URL(Array(#"{"message":"forged \#(index)"}"#.utf8))
            let moved = verdicts(parts[0] + "." + otherPayload + "." + parts[2])
            XCTAssertEqual(moved.cached, .badSignature)
            XCTAssertEqual(moved.uncached, .badSignature)
        }
        XCTAssertEqual(cached.cachedEntries.headers, 1, "every token above shares the cached header")
    }

    func testOutOfRangeMalleatedAndMisSizedSignaturesGetTheSameVerdictWithAndWithoutTheCache() throws {
        let good = try token(payload: "scalars")
        let signature = raw(good)
        let r = Array(signature[..<32]), s = Array(signature[32...])
        let zero = [UInt8](repeating: 0, count: 32)
        let cases: [(String, [UInt8], JWSError.Code?)] = [
            ("r = 0", zero + s, .badSignature),
            ("s = 0", r + zero, .badSignature),
            ("r = n", Self.order + s, .badSignature),
            ("s = n", r + Self.order, .badSignature),
            ("r + n (mod 2^256)", Self.add(r, Self.order) + s, .badSignature),
            ("s + n (mod 2^256)", r + Self.add(s, Self.order), .badSignature),
            ("all ones", [UInt8](repeating: 0xFF, count: 64), .badSignature),
            ("r = 1", zero.dropLast() + [1] + s, .badSignature),
            ("r and s swapped", s + r, .badSignature),
            // ECDSA's own malleability: (r, n - s) verifies too; JWS does not forbid it.
            ("s = n - s", r + Self.subtract(Self.order, s), nil),
            // Only exactly 64 bytes are raw r||s: a leading zero or a dropped byte is refused.
            ("65 bytes", [0] + signature, .badSignature),
            ("63 bytes", Array(signature.dropLast()), .badSignature),
            ("empty r and s", [], .malformed),
        ]
        for (name, bytes, expected) in cases {
            let verdict = verdicts(resigned(good, bytes))
            XCTAssertEqual(verdict.cached, expected, name)
            XCTAssertEqual(verdict.uncached, expected, name)
        }
    }

    func testAnotherKeysSignatureOverTheCachedHeaderIsRefused() throws {
        let other = try ES256SigningKey(pkcs8PEM: Array(pki.leafWithoutOID.keyPEM.utf8))
        let forged = try other.signCompact(header: header, payload: Array(#"{"message":"forged"}"#.utf8))
        let verdict = verdicts(forged)
        XCTAssertEqual(verdict.cached, .badSignature)
        XCTAssertEqual(verdict.uncached, .badSignature)
    }

    private static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Big-endian 256-bit sum, dropping the carry out of the top byte.
    private static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32), carry = 0
        for i in (0..<32).reversed() {
            let sum = Int(a[i]) + Int(b[i]) + carry
            out[i] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        return out
    }

    /// Big-endian 256-bit difference a - b (a >= b).
    private static func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32), borrow = 0
        for i in (0..<32).reversed() {
            var difference = Int(a[i]) - Int(b[i]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            out[i] = UInt8(difference)
        }
        return out
    }
}
