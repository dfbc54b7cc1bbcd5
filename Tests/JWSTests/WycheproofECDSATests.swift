import Foundation
import Testing

@testable import JWS

/// Google's Wycheproof ECDSA P-256/SHA-256 vectors through the functions the service verifies
/// ES256 with: the IEEE P1363 file through ``ES256/verify(rawSignature:over:key:)`` (the path a
/// token's raw r||s takes from ``JWSVerifier``), the DER file through
/// ``ES256/verify(derSignature:over:key:)`` (the EVP_DigestVerify calls the raw path ends in),
/// and the P1363 file again through ``ES256SigningPrefix`` (the path of a token whose header the
/// verifier remembers).
///
/// The files are C2SP/wycheproof's testvectors_v1 at dac1dd4729fd1f8dd9e1e9f3dce51d783da6c166,
/// unmodified, under the Apache License 2.0 (Wycheproof/LICENSE). Our own tokens only show that
/// good signatures pass; these show what a verifier must refuse (r or s out of range, BER,
/// truncation, wrong lengths, points at infinity, edge-case arithmetic) and must accept.
@Suite("Wycheproof ECDSA P-256 SHA-256")
struct WycheproofECDSATests {
    struct VectorFile: Decodable {
        let numberOfTests: Int
        let testGroups: [Group]
    }

    struct Group: Decodable {
        let publicKeyDer: String
        let sha: String
        let tests: [Vector]
    }

    struct Vector: Decodable {
        let tcId: Int
        let comment: String
        let msg: String
        let sig: String
        let result: String
    }

    /// How many vectors of each verdict ran, and what each "acceptable" one got.
    struct Tally: CustomStringConvertible {
        var valid = 0
        var invalid = 0
        var acceptable: [(tcId: Int, accepted: Bool)] = []
        var total: Int { valid + invalid + acceptable.count }

        var description: String {
            let outcomes = acceptable.map { "\($0.tcId): \($0.accepted ? "accepted" : "refused")" }
            return "\(total) vectors: \(valid) valid, \(invalid) invalid, \(acceptable.count) acceptable "
                + "[\(outcomes.joined(separator: ", "))]"
        }
    }

    @Test("IEEE P1363 vectors through the JWS raw r||s path")
    func p1363() throws {
        let tally = try run("ecdsa_secp256r1_sha256_p1363_test.json") { key, signature, message throws(JWSError) in
            try ES256.verify(rawSignature: signature, over: message, key: key.pkey)
        }
        print("Wycheproof P1363: \(tally)")
    }

    @Test("DER vectors through the EVP verification entry point")
    func der() throws {
        let tally = try run("ecdsa_secp256r1_sha256_test.json") { key, signature, message throws(JWSError) in
            try ES256.verify(derSignature: signature, over: message, key: key.pkey)
        }
        print("Wycheproof DER: \(tally)")
    }

    /// The path a token from a remembered header takes: the message's first part hashed once
    /// into an ``ES256SigningPrefix``, the rest and the signature per call. Every vector is
    /// checked with the split at its start, middle and end, and a prefix serves twice.
    @Test("IEEE P1363 vectors through a remembered signing prefix")
    func p1363Prefix() throws {
        let tally = try run("ecdsa_secp256r1_sha256_p1363_test.json") { key, signature, message throws(JWSError) in
            var outcomes: [JWSError?] = []
            for split in [message.startIndex, message.startIndex + message.count / 2, message.endIndex] {
                let prefix = try ES256SigningPrefix(prefix: message[..<split], key: key.pkey)
                for _ in 0..<2 {
                    do throws(JWSError) {
                        try prefix.verify(rawSignature: signature, rest: message[split...])
                        outcomes.append(nil)
                    } catch {
                        outcomes.append(error)
                    }
                }
            }
            // One verdict whatever the split, and a prefix still serves after a verification.
            #expect(Set(outcomes.map { $0 == nil }).count == 1, "verdicts by split: \(outcomes)")
            if let error = outcomes.first ?? nil { throw error }
        }
        print("Wycheproof P1363 through a prefix: \(tally)")
    }

    /// Runs every vector of `file` through `verify`, asserting Wycheproof's verdict, and checks
    /// that the number run is the file's own count, so a parsing slip cannot skip vectors.
    private func run(
        _ file: String,
        _ verify: (ES256PublicKey, [UInt8], ArraySlice<UInt8>) throws(JWSError) -> Void
    ) throws -> Tally {
        let url = try #require(Bundle.module.url(forResource: "Wycheproof/\(file)", withExtension: nil))
        let vectors = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
        var tally = Tally()
        for group in vectors.testGroups {
            #expect(group.sha == "SHA-256")
            let key = try ES256PublicKey(subjectPublicKeyInfo: try Self.bytes(hex: group.publicKeyDer))
            for vector in group.tests {
                let message = try Self.bytes(hex: vector.msg)
                let signature = try Self.bytes(hex: vector.sig)
                let outcome: Result<Void, JWSError>
                do throws(JWSError) {
                    try verify(key, signature, message[...])
                    outcome = .success(())
                } catch {
                    outcome = .failure(error)
                }
                let label = Comment(rawValue: "tcId \(vector.tcId) (\(vector.comment))")
                switch (vector.result, outcome) {
                case ("valid", .success):
                    tally.valid += 1
                case ("valid", .failure(let error)):
                    tally.valid += 1
                    Issue.record("\(label): a valid signature was refused: \(error)")
                case ("invalid", .success):
                    tally.invalid += 1
                    Issue.record("\(label): an invalid signature verified")
                case ("invalid", .failure(let error)):
                    tally.invalid += 1
                    // Refused as a bad signature, not lost to an OpenSSL failure that retrying might pass.
                    #expect(error.code == .badSignature, label)
                case ("acceptable", let outcome):
                    tally.acceptable.append((vector.tcId, (try? outcome.get()) != nil))
                default:
                    Issue.record("\(label): unknown result \"\(vector.result)\"")
                }
            }
        }
        #expect(tally.total == vectors.numberOfTests, "every vector in \(file) ran")
        #expect(vectors.numberOfTests > 0)
        return tally
    }

    private struct NotHex: Error {}

    private static func bytes(hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw NotHex() }
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw NotHex()
            }
            return byte
        }
    }
}
