import JWS
import XCTest

/// Trust configuration fails at startup with a clear message, not per token.
final class TrustedRootsTests: XCTestCase {
    func testRejectsPEMWithoutCertificates() {
        for pem in ["", "hello", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"] {
            assertRejects(.invalidTrustedRoot) { () throws(JWSError) in try TrustedRoots(pem: pem) }
        }
    }

    func testRejectsCorruptPEMBlock() {
        let pem = "-----BEGIN CERTIFICATE-----\nTUlJQg==\n-----END CERTIFICATE-----\n"
        assertRejects(.invalidTrustedRoot) { () throws(JWSError) in try TrustedRoots(pem: pem) }
    }

    func testRejectsRootThatIsNotSelfSigned() throws {
        let pki = try PKIFixture.shared.get()
        assertRejects(.invalidTrustedRoot) { () throws(JWSError) in
            try TrustedRoots(pem: pki.intermediate.certificatePEM)
        }
    }

    func testRejectsEmptyDERList() {
        assertRejects(.invalidTrustedRoot) { () throws(JWSError) in try TrustedRoots(derCertificates: []) }
        assertRejects(.invalidTrustedRoot) { () throws(JWSError) in try TrustedRoots(derCertificates: [[0x30, 0x00]]) }
    }

    func testAcceptsDERRoots() throws {
        let pki = try PKIFixture.shared.get()
        let roots = try TrustedRoots(derCertificates: [pki.root.der, pki.otherRoot.der])
        XCTAssertEqual(roots.count, 2)
        XCTAssertEqual(roots.summaries.count, 2)
    }
}
