import Foundation
import JWS
import XCTest

/// A header or chain the cache remembers from a good token never lets a later token skip a
/// check: each refusal below comes after the good token was verified (and cached) and matches
/// what a verifier without a cache says.
final class HeaderCacheTests: XCTestCase {
    private var pki: PKIFixture!
    private var verifier: JWSVerifier!
    private var uncached: JWSVerifier!
    private var good: String!

    override func setUpWithError() throws {
        pki = try PKIFixture.shared.get()
        verifier = JWSVerifier(trustedRoots: pki.trustedRoots)
        uncached = JWSVerifier(trustedRoots: pki.trustedRoots, chainCacheCapacity: 0)
        good = try PKIFixture.token(chain: pki.chain, signer: pki.leaf)
        XCTAssertNoThrow(try verifier.verify(good, at: PKIFixture.nowMs))
        XCTAssertEqual(verifier.cachedEntries.headers, 1)
        XCTAssertEqual(verifier.cachedEntries.chains, 1)
    }

    /// Asserts both verifiers refuse `compact` at `time` with `code`.
    private func assertBothReject(_ code: JWSError.Code, certificate: JWSError.CertificatePosition? = nil,
                                  _ compact: String, at time: Int64 = PKIFixture.nowMs,
                                  line: UInt = #line) {
        assertRejects(code, certificate: certificate, line: line) { () throws(JWSError) in
            try verifier.verify(compact, at: time)
        }
        assertRejects(code, certificate: certificate, line: line) { () throws(JWSError) in
            try uncached.verify(compact, at: time)
        }
    }

    func testTheSameHeaderIsAcceptedFromTheCacheWithTheSameResult() throws {
        let payload = #"{"message":"second","signedDate":1700000000001}"#
        let second = try PKIFixture.token(payload: payload, chain: pki.chain, signer: pki.leaf)
        let cached = try verifier.verify(second, at: PKIFixture.nowMs)
        let fresh = try uncached.verify(second, at: PKIFixture.nowMs)
        XCTAssertEqual(cached.payload, Array(payload.utf8))
        XCTAssertEqual(cached.header, fresh.header)
        XCTAssertEqual(cached.signingCertificate, fresh.signingCertificate)
        XCTAssertEqual(cached.algorithm, fresh.algorithm)
        XCTAssertEqual(verifier.cachedEntries.headers, 1)
    }

    func testAnExpiredLeafAtTheTokensTimeIsRefusedWithAKnownHeader() throws {
        let afterExpiry = PKIFixture.nowMs + (PKIFixture.leafDays + 1) * PKIFixture.dayMs
        assertBothReject(.certificateExpired, certificate: .leaf, good, at: afterExpiry)
        assertBothReject(.certificateNotYetValid, certificate: .leaf, good, at: PKIFixture.nowMs - PKIFixture.dayMs)
        XCTAssertNoThrow(try verifier.verify(good, at: PKIFixture.nowMs))
    }

    func testAKnownHeaderWithASignatureByAnotherKeyIsRefused() throws {
        let forged = try PKIFixture.token(chain: pki.chain, signer: pki.leafWithoutOID)
        XCTAssertEqual(forged.split(separator: ".")[0], good.split(separator: ".")[0])
        assertBothReject(.badSignature, forged)
        let parts = good.split(separator: ".").map(String.init)
        let otherPayload = PKIFixture.base64URL(Array(#"{"message":"forged","signedDate":1700000000000}"#.utf8))
        assertBothReject(.badSignature, [parts[0], otherPayload, parts[2]].joined(separator: "."))
        assertBothReject(.malformed, [parts[0], parts[1], "!!"].joined(separator: "."))
    }

    func testADifferentLeafIsRefused() throws {
        let otherChain = try PKIFixture.token(chain: [pki.otherLeaf.der, pki.intermediate.der, pki.root.der],
                                              signer: pki.otherLeaf)
        assertBothReject(.badCertificateChain, otherChain)
        let p384 = try PKIFixture.token(chain: [pki.leafP384.der, pki.intermediate.der, pki.root.der],
                                        signer: pki.leafP384)
        assertBothReject(.unsupportedKey, certificate: .leaf, p384)
    }

    func testALeafOrIntermediateWithoutTheRoleOIDIsRefused() throws {
        let leaf = try PKIFixture.token(chain: [pki.leafWithoutOID.der, pki.intermediate.der, pki.root.der],
                                        signer: pki.leafWithoutOID)
        assertBothReject(.missingCertificateExtension, certificate: .leaf, leaf)
        let underPlain = pki.leafUnderIntermediateWithoutOID
        let intermediate = try PKIFixture.token(
            chain: [underPlain.der, pki.intermediateWithoutOID.der, pki.root.der], signer: underPlain)
        assertBothReject(.missingCertificateExtension, certificate: .intermediate, intermediate)
    }

    func testTheGoodChainUnderAnotherHeaderIsStillCheckedAsAHeader() throws {
        let critical = try PKIFixture.token(chain: pki.chain, signer: pki.leaf, extraHeader: ["crit": ["exp"]])
        assertBothReject(.malformed, critical)
        let otherAlgorithm = try PKIFixture.token(algorithm: "ES384", chain: pki.chain, signer: pki.leaf)
        assertBothReject(.unsupportedAlgorithm, otherAlgorithm)
        let untrustedRoot = try PKIFixture.token(chain: [pki.leaf.der, pki.intermediate.der, pki.otherRoot.der],
                                                 signer: pki.leaf)
        assertBothReject(.untrustedRoot, certificate: .root, untrustedRoot)
        // The same certificates under a header spelled differently: a new header text, the
        // cached chain, accepted.
        let withKeyID = try PKIFixture.token(chain: pki.chain, signer: pki.leaf, extraHeader: ["kid": "k1"])
        XCTAssertNoThrow(try verifier.verify(withKeyID, at: PKIFixture.nowMs))
        XCTAssertEqual(verifier.cachedEntries.headers, 2)
        XCTAssertEqual(verifier.cachedEntries.chains, 1)
        XCTAssertEqual(verifier.fullChecks?.headers, 2, "the good header and the one with a key id")
        XCTAssertEqual(verifier.fullChecks?.chains, 1, "the second header found the chain verified")
        XCTAssertNil(uncached.fullChecks)
    }

    func testRefusedHeadersAreNotRemembered() throws {
        let leaf = try PKIFixture.token(chain: [pki.leafWithoutOID.der, pki.intermediate.der, pki.root.der],
                                        signer: pki.leafWithoutOID)
        for _ in 0..<2 {
            assertRejects(.missingCertificateExtension) { () throws(JWSError) in
                try verifier.verify(leaf, at: PKIFixture.nowMs)
            }
        }
        XCTAssertEqual(verifier.cachedEntries.headers, 1)
    }
}
