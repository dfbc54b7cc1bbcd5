import Foundation
import JWS
import XCTest

/// Verification against a PKI generated at run time: one accepted shape, each rejection alone.
final class ChainAndSignatureTests: XCTestCase {
    private var pki: PKIFixture!
    private var verifier: JWSVerifier!

    override func setUpWithError() throws {
        pki = try PKIFixture.shared.get()
        verifier = JWSVerifier(trustedRoots: pki.trustedRoots)
    }

    private func token(_ chain: [[UInt8]]? = nil, signer: TestPKI.Credential? = nil,
                       payload: String = #"{"message":"hello","signedDate":1700000000000}"#) throws -> String {
        try PKIFixture.token(payload: payload, chain: chain ?? pki.chain, signer: signer ?? pki.leaf)
    }

    func testAcceptsValidToken() throws {
        let payload = #"{"message":"hello","signedDate":1700000000000}"#
        let verified = try verifier.verify(try token(payload: payload), at: PKIFixture.nowMs)
        XCTAssertEqual(verified.payload, Array(payload.utf8))
        XCTAssertEqual(verified.algorithm, "ES256")
        XCTAssertEqual(verified.signingCertificate, pki.leaf.der)
        let header = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(verified.header)) as? [String: Any])
        XCTAssertEqual(header["alg"] as? String, "ES256")
    }

    func testAcceptsRepeatedTokensFromCacheAndWithoutCache() throws {
        let compact = try token()
        let uncached = JWSVerifier(trustedRoots: pki.trustedRoots, chainCacheCapacity: 0)
        for _ in 0..<3 {
            XCTAssertNoThrow(try verifier.verify(compact, at: PKIFixture.nowMs))
            XCTAssertNoThrow(try uncached.verify(compact, at: PKIFixture.nowMs))
        }
    }

    func testRejectsTamperedPayload() throws {
        let parts = try token().split(separator: ".").map(String.init)
        let forged = PKIFixture.base64URL(Array(#"{"message":"hellO","signedDate":1700000000000}"#.utf8))
        assertRejects(.badSignature) { () throws(JWSError) in
            try verifier.verify([parts[0], forged, parts[2]].joined(separator: "."), at: PKIFixture.nowMs)
        }
    }

    func testRejectsTamperedSignature() throws {
        let parts = try token().split(separator: ".").map(String.init)
        var signature = Array(parts[2].utf8)
        // Flip a character in the middle (the last one carries padding bits).
        signature[20] = signature[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tampered = [parts[0], parts[1], String(decoding: signature, as: UTF8.self)].joined(separator: ".")
        assertRejects(.badSignature) { () throws(JWSError) in try verifier.verify(tampered, at: PKIFixture.nowMs) }
    }

    func testRejectsSignatureByAnotherKey() throws {
        let compact = try token(signer: pki.leafWithoutOID)
        assertRejects(.badSignature) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs) }
    }

    func testRejectsUntrustedRoot() throws {
        let compact = try token(
            [pki.otherLeaf.der, pki.otherIntermediate.der, pki.otherRoot.der], signer: pki.otherLeaf)
        assertRejects(.untrustedRoot, certificate: .root) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsIntermediateNotIssuedByTrustedRoot() throws {
        // The trusted root is named in x5c, but the intermediate belongs to another PKI.
        let compact = try token([pki.otherLeaf.der, pki.otherIntermediate.der, pki.root.der], signer: pki.otherLeaf)
        assertRejects(.badCertificateChain) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsLeafNotIssuedByIntermediate() throws {
        let compact = try token([pki.otherLeaf.der, pki.intermediate.der, pki.root.der], signer: pki.otherLeaf)
        assertRejects(.badCertificateChain) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsLeafWithoutRoleOID() throws {
        let compact = try token(
            [pki.leafWithoutOID.der, pki.intermediate.der, pki.root.der], signer: pki.leafWithoutOID)
        assertRejects(.missingCertificateExtension, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsIntermediateWithoutRoleOID() throws {
        let leaf = pki.leafUnderIntermediateWithoutOID
        let compact = try token([leaf.der, pki.intermediateWithoutOID.der, pki.root.der], signer: leaf)
        assertRejects(.missingCertificateExtension, certificate: .intermediate) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsLeafExpiredAtVerificationTime() throws {
        let compact = try token()
        let afterExpiry = PKIFixture.nowMs + (PKIFixture.leafDays + 1) * PKIFixture.dayMs
        // Cold, then warm: a cached chain must still be checked against each token's time.
        assertRejects(.certificateExpired, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: afterExpiry)
        }
        XCTAssertNoThrow(try verifier.verify(compact, at: PKIFixture.nowMs))
        assertRejects(.certificateExpired, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: afterExpiry)
        }
    }

    func testRejectsCertificatesNotYetValidAtVerificationTime() throws {
        let compact = try token()
        let beforeIssue = PKIFixture.nowMs - PKIFixture.dayMs
        assertRejects(.certificateNotYetValid, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: beforeIssue)
        }
        XCTAssertNoThrow(try verifier.verify(compact, at: PKIFixture.nowMs))
        assertRejects(.certificateNotYetValid, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: beforeIssue)
        }
    }

    func testRejectsLeafKeyNotP256() throws {
        let compact = try token([pki.leafP384.der, pki.intermediate.der, pki.root.der], signer: pki.leafP384)
        assertRejects(.unsupportedKey, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsTwoCertificates() throws {
        let compact = try token([pki.leaf.der, pki.intermediate.der])
        assertRejects(.wrongCertificateCount) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsFourCertificates() throws {
        let compact = try token([pki.leaf.der, pki.intermediate.der, pki.root.der, pki.root.der])
        assertRejects(.wrongCertificateCount) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsUnparsableCertificate() throws {
        let compact = try token([Array(pki.leaf.der.dropLast()), pki.intermediate.der, pki.root.der])
        assertRejects(.malformedCertificate, certificate: .leaf) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
        let trailing = try token([pki.leaf.der, pki.intermediate.der + [0], pki.root.der])
        assertRejects(.malformedCertificate, certificate: .intermediate) { () throws(JWSError) in
            try verifier.verify(trailing, at: PKIFixture.nowMs)
        }
    }

    func testTrustsEveryRootOfAMultiRootPEM() throws {
        let roots = try TrustedRoots(pem: pki.root.certificatePEM + "\n" + pki.otherRoot.certificatePEM)
        let both = JWSVerifier(trustedRoots: roots)
        XCTAssertEqual(roots.count, 2)
        XCTAssertNoThrow(try both.verify(try token(), at: PKIFixture.nowMs))
        let other = try token([pki.otherLeaf.der, pki.otherIntermediate.der, pki.otherRoot.der], signer: pki.otherLeaf)
        XCTAssertNoThrow(try both.verify(other, at: PKIFixture.nowMs))
    }
}
