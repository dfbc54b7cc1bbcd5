import Foundation
import JWS
import XCTest

/// The in-memory PKI and signer: what they make must pass the real verifier's every check.
final class SigningAuthorityTests: XCTestCase {
    private static let year: Int64 = 365 * 24 * 3_600_000
    private static let now: Int64 = 1_750_000_000_000

    private func authority() throws -> SigningAuthority {
        try SigningAuthority(notBeforeMs: Self.now - 5 * Self.year, notAfterMs: Self.now + 20 * Self.year)
    }

    func testSignedTokenVerifiesAgainstTheAuthorityRoot() throws {
        let pki = try authority()
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: pki.rootPEM))
        let payload = Array("{\"signedDate\":1750000000000,\"path\":\"a/b+c\"}".utf8)
        let token = try pki.signer.sign(payload)
        let verified = try verifier.verify(token, at: Self.now)
        XCTAssertEqual(verified.payload, payload)
        XCTAssertEqual(verified.algorithm, "ES256")
        XCTAssertEqual(verified.signingCertificate, pki.leafDER)
        XCTAssertEqual(try JWSVerifier.unverifiedPayload(token), payload)
    }

    func testManySignaturesAllVerify() throws {
        // r or s with a leading zero byte (about 1 in 128 signatures) must still be 32 bytes.
        let pki = try authority()
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: pki.rootPEM))
        for index in 0..<300 {
            let token = try pki.signer.sign(Array("{\"n\":\(index)}".utf8))
            XCTAssertNoThrow(try verifier.verify(token, at: Self.now), "token \(index)")
        }
    }

    func testVerifiesAcrossTheWholeValidityWindow() throws {
        let pki = try authority()
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: pki.rootPEM), chainCacheCapacity: 0)
        let token = try pki.signer.sign(Array("{}".utf8))
        XCTAssertNoThrow(try verifier.verify(token, at: Self.now - 4 * Self.year))
        XCTAssertNoThrow(try verifier.verify(token, at: Self.now + 19 * Self.year))
        assertRejects(.certificateNotYetValid) { () throws(JWSError) in
            try verifier.verify(token, at: Self.now - 6 * Self.year)
        }
        assertRejects(.certificateExpired) { () throws(JWSError) in
            try verifier.verify(token, at: Self.now + 21 * Self.year)
        }
    }

    func testAnotherAuthorityIsNotTrusted() throws {
        let trusted = try authority()
        let other = try authority()
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: trusted.rootPEM))
        assertRejects(.untrustedRoot, certificate: .root) { () throws(JWSError) in
            try verifier.verify(try other.signer.sign(Array("{}".utf8)), at: Self.now)
        }
        XCTAssertNotEqual(trusted.rootDER, other.rootDER)
    }

    func testTamperedPayloadIsRejected() throws {
        let pki = try authority()
        let verifier = JWSVerifier(trustedRoots: try TrustedRoots(pem: pki.rootPEM))
        let token = try pki.signer.sign(Array("{\"a\":1}".utf8))
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = "eyJhIjoyfQ"  // {"a":2}
        assertRejects(.badSignature) { () throws(JWSError) in
            try verifier.verify(parts.joined(separator: "."), at: Self.now)
        }
    }
}
