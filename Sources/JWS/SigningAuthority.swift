internal import COpenSSL

/// A throwaway, Apple-shaped PKI generated in memory: root (EC P-384, self-signed) ->
/// intermediate (P-256, OID 1.2.840.113635.100.6.2.1) -> leaf (P-256, OID
/// 1.2.840.113635.100.6.11.1), and the ``JWSSigner`` of its leaf.
///
/// For simulators and tests that must produce data a real ``JWSVerifier`` accepts when told
/// to trust ``rootPEM`` (entitlementd's `--apple-root-ca`). Nothing is written to disk and no
/// key can be exported: a fresh authority per process is the point. Validity is a window the
/// caller chooses, wide enough to cover every signedDate a simulated clock may reach, since
/// verifiers check the chain at the payload's signedDate, not at the time of verification.
public final class SigningAuthority: Sendable {
    /// The root certificate as PEM, for a verifier's trusted roots.
    public let rootPEM: String
    public let rootDER: [UInt8]
    public let intermediateDER: [UInt8]
    public let leafDER: [UInt8]
    public let signer: JWSSigner

    /// Generates the three keys and certificates, valid from `notBeforeMs` to `notAfterMs`.
    public init(notBeforeMs: Int64, notAfterMs: Int64, name: String = "App Store Simulator") throws(JWSError) {
        let notBefore = notBeforeMs / 1000
        let notAfter = notAfterMs / 1000
        // Serials only need to be distinct within the chain; random ones keep two authorities'
        // certificates from looking alike in logs.
        let serial = Int.random(in: 1..<(1 << 40))
        let rootKey = try ECPrivateKey(curve: "P-384")
        let intermediateKey = try ECPrivateKey(curve: "P-256")
        let leafKey = try ECPrivateKey(curve: "P-256")
        let root = try CertificateIssuance.issue(
            CertificateProfile(commonName: "\(name) Root CA", role: .root, serial: serial,
                               notBeforeSeconds: notBefore, notAfterSeconds: notAfter, appleOIDs: []),
            subjectKey: rootKey, issuer: nil)
        defer { X509_free(root) }
        let intermediate = try CertificateIssuance.issue(
            CertificateProfile(commonName: "\(name) Worldwide Developer Relations", role: .intermediate,
                               serial: serial + 1, notBeforeSeconds: notBefore, notAfterSeconds: notAfter,
                               appleOIDs: [VerifiedChain.intermediateExtensionOID]),
            subjectKey: intermediateKey, issuer: (root, rootKey))
        defer { X509_free(intermediate) }
        let leaf = try CertificateIssuance.issue(
            CertificateProfile(commonName: "\(name) Signing", role: .leaf, serial: serial + 2,
                               notBeforeSeconds: notBefore, notAfterSeconds: notAfter,
                               appleOIDs: [VerifiedChain.leafExtensionOID]),
            subjectKey: leafKey, issuer: (intermediate, intermediateKey))
        defer { X509_free(leaf) }
        rootPEM = try CertificateIssuance.pem(of: root)
        rootDER = try CertificateIssuance.der(of: root)
        intermediateDER = try CertificateIssuance.der(of: intermediate)
        leafDER = try CertificateIssuance.der(of: leaf)
        signer = JWSSigner(key: leafKey, chain: [leafDER, intermediateDER, rootDER])
    }
}
