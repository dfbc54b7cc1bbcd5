import Foundation

/// The fields of the JOSE header this verifier acts on.
struct JOSEHeader {
    let algorithm: String
    /// The `x5c` entries, each decoded from standard base64 to DER.
    let certificates: [[UInt8]]

    /// The only algorithm accepted: the one Apple signs with and the leaf's P-256 key supports.
    static let requiredAlgorithm = "ES256"
    static let requiredCertificateCount = 3

    init(json: [UInt8]) throws(JWSError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw JWSError(.malformed, "the JWS header is not JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw JWSError(.malformed, "the JWS header is not a JSON object")
        }
        guard let algorithm = fields["alg"] as? String else {
            throw JWSError(.malformed, "the JWS header has no string \"alg\"")
        }
        guard algorithm == Self.requiredAlgorithm else {
            throw JWSError(
                .unsupportedAlgorithm,
                "header alg is \(String(algorithm.prefix(32)).debugDescription); only ES256 is accepted")
        }
        // RFC 7515 4.1.11: a verifier must reject extensions it is told are critical.
        guard fields["crit"] == nil else {
            throw JWSError(
                .malformed, "the JWS header lists critical extensions (crit), which this verifier does not implement")
        }
        guard let x5c = fields["x5c"] as? [Any] else {
            throw JWSError(.malformed, "the JWS header has no \"x5c\" certificate array")
        }
        guard x5c.count == Self.requiredCertificateCount else {
            throw JWSError(
                .wrongCertificateCount,
                "x5c holds \(x5c.count) certificate(s); exactly 3 (leaf, intermediate, root) are required")
        }
        var certificates: [[UInt8]] = []
        for (index, entry) in x5c.enumerated() {
            let position = JWSError.CertificatePosition(rawValue: index)
            guard let text = entry as? String, let der = Base64.decodeStandard(text) else {
                throw JWSError(
                    .malformedCertificate, "x5c[\(index)] is not a standard base64 string", certificate: position)
            }
            certificates.append(der)
        }
        self.algorithm = algorithm
        self.certificates = certificates
    }
}
