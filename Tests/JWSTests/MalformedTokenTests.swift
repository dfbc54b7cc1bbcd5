import Foundation
import JWS
import XCTest

/// Structure and header rules: what must be rejected before any certificate is looked at.
final class MalformedTokenTests: XCTestCase {
    private var pki: PKIFixture!
    private var verifier: JWSVerifier!
    private var valid: [String] = []

    override func setUpWithError() throws {
        pki = try PKIFixture.shared.get()
        verifier = JWSVerifier(trustedRoots: pki.trustedRoots)
        valid = try PKIFixture.token(chain: pki.chain, signer: pki.leaf).split(separator: ".").map(String.init)
    }

    private func assertMalformed(_ compact: String, file: StaticString = #filePath, line: UInt = #line) {
        assertRejects(.malformed, file: file, line: line) { () throws(JWSError) in
            try verifier.verify(compact, at: PKIFixture.nowMs)
        }
        assertRejects(.malformed, file: file, line: line) { () throws(JWSError) in
            try JWSVerifier.unverifiedPayload(compact)
        }
    }

    private func header(_ json: String) -> String { PKIFixture.base64URL(Array(json.utf8)) }

    func testRejectsWrongPartCount() {
        assertMalformed("")
        assertMalformed(valid[0])
        assertMalformed(valid[0] + "." + valid[1])
        assertMalformed(valid.joined(separator: ".") + "." + valid[2])
        assertMalformed(valid.joined(separator: ".") + ".." + valid[2] + "." + valid[2])
    }

    func testRejectsEmptyParts() {
        assertMalformed("." + valid[1] + "." + valid[2])
        assertMalformed(valid[0] + ".." + valid[2])
        assertMalformed(valid[0] + "." + valid[1] + ".")
        assertMalformed("..")
    }

    func testRejectsNonBase64URLCharactersInEachPart() {
        for index in 0..<3 {
            for bad in ["+", "/", "*", " ", "\n", "é"] {
                var parts = valid
                parts[index] = String(parts[index].prefix(8)) + bad + String(parts[index].dropFirst(8))
                assertMalformed(parts.joined(separator: "."))
            }
        }
    }

    func testRejectsPaddingAndImpossibleLengths() {
        for index in 0..<3 {
            var padded = valid
            padded[index] += "="
            assertMalformed(padded.joined(separator: "."))
            var tooLong = valid
            // base64 of n bytes is never 4k+1 characters long.
            tooLong[index] += String(repeating: "A", count: (5 - tooLong[index].count % 4) % 4)
            assertMalformed(tooLong.joined(separator: "."))
        }
    }

    func testRejectsNonCanonicalTrailingBits() {
        // "YQ" is "a"; "YR" would also decode to "a" if the leftover bits were ignored.
        XCTAssertEqual(try JWSVerifier.unverifiedPayload(valid[0] + ".YQ." + valid[2]), Array("a".utf8))
        assertMalformed(valid[0] + ".YR." + valid[2])
    }

    func testUnverifiedPayloadDecodesWithoutVerifying() throws {
        let forged = PKIFixture.base64URL(Array(#"{"signedDate":1}"#.utf8))
        let compact = [valid[0], forged, valid[2]].joined(separator: ".")
        XCTAssertEqual(try JWSVerifier.unverifiedPayload(compact), Array(#"{"signedDate":1}"#.utf8))
        assertRejects(.badSignature) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs) }
    }

    func testRejectsAlgNone() {
        let none = header(#"{"alg":"none"}"#) + "." + valid[1]
        assertRejects(.unsupportedAlgorithm) { () throws(JWSError) in
            try verifier.verify(none + ".", at: PKIFixture.nowMs)
        }
        assertRejects(.unsupportedAlgorithm) { () throws(JWSError) in
            try verifier.verify(none + "." + valid[2], at: PKIFixture.nowMs)
        }
    }

    func testRejectsAlgHS256() throws {
        // The classic confusion attack: an HMAC "keyed" with public material, x5c still present.
        let compact = try PKIFixture.token(algorithm: "HS256", chain: pki.chain, signer: pki.leaf)
        assertRejects(.unsupportedAlgorithm) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs)
        }
    }

    func testRejectsOtherAlgorithmSpellings() throws {
        for algorithm in ["es256", "ES384", "ES256K", "RS256", " ES256", ""] {
            let compact = try PKIFixture.token(algorithm: algorithm, chain: pki.chain, signer: pki.leaf)
            assertRejects(.unsupportedAlgorithm) { () throws(JWSError) in
                try verifier.verify(compact, at: PKIFixture.nowMs)
            }
        }
    }

    func testRejectsHeadersWithoutUsableFields() {
        for json in [#"[]"#, #"not json"#, #"{"x5c":[]}"#, #"{"alg":256}"#, #"{"alg":"ES256"}"#,
                     #"{"alg":"ES256","x5c":"MIIB"}"#] {
            assertRejects(.malformed) { () throws(JWSError) in
                try verifier.verify(header(json) + "." + valid[1] + "." + valid[2], at: PKIFixture.nowMs)
            }
        }
    }

    func testRejectsCriticalHeaderExtensions() throws {
        let compact = try PKIFixture.token(chain: pki.chain, signer: pki.leaf, extraHeader: ["crit": ["exp"], "exp": 1])
        assertRejects(.malformed) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs) }
    }

    func testRejectsCertificatesThatAreNotStandardBase64() {
        let x5c = pki.chain.map { Data($0).base64EncodedString() }
        let urlSafe = PKIFixture.base64URL(pki.leaf.der)
        for entries in [[urlSafe, x5c[1], x5c[2]], ["!!!!", x5c[1], x5c[2]], [x5c[0], x5c[1] + "\n", x5c[2]]] {
            let json = try! JSONSerialization.data(withJSONObject: ["alg": "ES256", "x5c": entries])
            let compact = PKIFixture.base64URL([UInt8](json)) + "." + valid[1] + "." + valid[2]
            assertRejects(.malformedCertificate) { () throws(JWSError) in
                try verifier.verify(compact, at: PKIFixture.nowMs)
            }
        }
    }

    func testRejectsSignatureOfWrongLength() throws {
        let raw = try XCTUnwrap(Data(base64Encoded: valid[2].replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/") + "=="))
        // A DER-encoded signature (a common signer bug) and truncated or extended raw ones.
        let der = [0x30, 0x44, 0x02, 0x20] + raw.prefix(32) + [0x02, 0x20] + raw.suffix(32)
        for signature in [[UInt8](der), [UInt8](raw.prefix(63)), [UInt8](raw) + [0], [UInt8](raw.prefix(32))] {
            let compact = valid[0] + "." + valid[1] + "." + PKIFixture.base64URL(signature)
            assertRejects(.badSignature) { () throws(JWSError) in try verifier.verify(compact, at: PKIFixture.nowMs) }
        }
    }

    func testFuzzEntryPointSurvivesGarbageAndTruncations() {
        let compact = valid.joined(separator: ".")
        var inputs: [[UInt8]] = [[], [0], [0xff, 0xfe], Array("..".utf8), Array(compact.utf8)]
        for cut in stride(from: 0, to: compact.utf8.count, by: 97) {
            inputs.append(Array(compact.utf8.prefix(cut)))
        }
        var generator = SeededGenerator(for: #function)
        for _ in 0..<50 {
            var mutated = Array(compact.utf8)
            mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            inputs.append(mutated)
        }
        for input in inputs {
            input.withUnsafeBytes { JWSVerifier.fuzzParse($0) }
        }
    }
}
