import Foundation

/// A throwaway PKI shaped like Apple's App Store chain, generated when the tests run.
///
/// Nothing is committed: keys exist only in memory (and briefly in a scratch directory while
/// `openssl` uses them). Extensions mirror Apple's certificates: role OIDs non-critical,
/// key identifiers present, CA basic constraints critical, so X509_STRICT checks apply as
/// they do to real tokens.
struct TestPKI: Sendable {
    /// A certificate and the PEM of its private key.
    struct Credential: Sendable {
        let certificatePEM: String
        let der: [UInt8]
        let keyPEM: String
        let curve: Curve
    }

    enum Curve: String, Sendable {
        case p256 = "P-256", p384 = "P-384"
    }

    static let intermediateOID = "1.2.840.113635.100.6.2.1"
    static let leafOID = "1.2.840.113635.100.6.11.1"

    private static let config = """
        [req]
        distinguished_name = dn
        prompt = no
        [dn]
        CN = unused
        [root]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [intermediate]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid:always
        \(intermediateOID) = ASN1:NULL
        [intermediate_without_oid]
        basicConstraints = critical, CA:TRUE, pathlen:0
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid:always
        [leaf]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid:always
        \(leafOID) = ASN1:NULL
        [leaf_without_oid]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        subjectKeyIdentifier = hash
        authorityKeyIdentifier = keyid:always

        """

    /// A self-signed root valid for ten years from now.
    static func root(_ name: String, curve: Curve = .p384) throws -> Credential {
        try OpenSSLCommand.withScratchDirectory { directory in
            try write(config, "openssl.cnf", in: directory)
            try generateKey(curve, "key.pem", in: directory)
            try OpenSSLCommand.run(["req", "-x509", "-new", "-config", "openssl.cnf", "-key", "key.pem",
                                    "-subj", "/CN=\(name)/O=entitlementd tests", "-days", "3650",
                                    "-sha384", "-extensions", "root", "-out", "cert.pem"], in: directory)
            return try credential(curve, in: directory)
        }
    }

    /// A certificate for a new key, signed by `issuer`, valid for `days` from now.
    /// - Parameter profile: a section of ``config``: intermediate, leaf or their `_without_oid`.
    static func issue(
        _ name: String, profile: String, curve: Curve, by issuer: Credential, days: Int = 365
    ) throws -> Credential {
        try OpenSSLCommand.withScratchDirectory { directory in
            try write(config, "openssl.cnf", in: directory)
            try write(issuer.certificatePEM, "issuer.pem", in: directory)
            try write(issuer.keyPEM, "issuer.key", in: directory)
            try generateKey(curve, "key.pem", in: directory)
            try OpenSSLCommand.run(["req", "-new", "-config", "openssl.cnf", "-key", "key.pem",
                                    "-subj", "/CN=\(name)/O=entitlementd tests", "-out", "request.pem"], in: directory)
            let serial = "0x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
            try OpenSSLCommand.run(
                [
                    "x509", "-req", "-in", "request.pem", "-CA", "issuer.pem", "-CAkey", "issuer.key",
                    "-set_serial", String(serial), "-days", String(days), "-sha384",
                    "-extfile", "openssl.cnf", "-extensions", profile, "-out", "cert.pem",
                ], in: directory)
            return try credential(curve, in: directory)
        }
    }

    /// An ECDSA-SHA256 signature (raw r||s, as JWS carries it) over `message` by `signer`.
    static func sign(_ message: [UInt8], with signer: Credential) throws -> [UInt8] {
        let der = try OpenSSLCommand.withScratchDirectory { directory in
            try write(signer.keyPEM, "key.pem", in: directory)
            return try OpenSSLCommand.run(["dgst", "-sha256", "-sign", "key.pem"], in: directory, input: Data(message))
        }
        return try rawSignature(fromDER: [UInt8](der), integerSize: signer.curve == .p256 ? 32 : 48)
    }

    /// Converts a DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) to fixed-size r || s.
    static func rawSignature(fromDER der: [UInt8], integerSize: Int) throws -> [UInt8] {
        struct BadSignature: Error {}
        var index = 2 + (der.count > 1 && der[1] & 0x80 != 0 ? Int(der[1] & 0x7f) : 0)
        var raw: [UInt8] = []
        for _ in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { throw BadSignature() }
            let length = Int(der[index + 1])
            var integer = Array(der[(index + 2)..<(index + 2 + length)])
            while integer.count > integerSize, integer.first == 0 { integer.removeFirst() }
            guard integer.count <= integerSize else { throw BadSignature() }
            raw += [UInt8](repeating: 0, count: integerSize - integer.count) + integer
            index += 2 + length
        }
        return raw
    }

    private static func generateKey(_ curve: Curve, _ name: String, in directory: URL) throws {
        try OpenSSLCommand.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve.rawValue)",
                                "-pkeyopt", "ec_param_enc:named_curve", "-out", name], in: directory)
    }

    private static func credential(_ curve: Curve, in directory: URL) throws -> Credential {
        let der = try OpenSSLCommand.run(["x509", "-in", "cert.pem", "-outform", "DER"], in: directory)
        return Credential(
            certificatePEM: try String(contentsOf: directory.appendingPathComponent("cert.pem"), encoding: .utf8),
            der: [UInt8](der),
            keyPEM: try String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8),
            curve: curve)
    }

    private static func write(_ text: String, _ name: String, in directory: URL) throws {
        try text.write(to: directory.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }
}
