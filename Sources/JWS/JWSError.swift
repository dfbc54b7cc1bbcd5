import ErrorCodes

/// Why a compact JWS (or a trust configuration) was rejected.
///
/// `code` is for programs (metrics labels, mapping to an API status); `message` is for the
/// operator and says what was wrong with which certificate, so a rejected token can be diagnosed
/// from one log line. Messages name certificates and OIDs, never payload contents.
public struct JWSError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure; codes can be added without breaking callers that switch over the
    /// ones they know.
    public typealias Code = ErrorCode<JWSError>

    /// Which `x5c` certificate an error is about; its raw value is the index in `x5c`.
    public enum CertificatePosition: Int, Sendable, CustomStringConvertible {
        case leaf = 0, intermediate = 1, root = 2

        public var description: String {
            switch self {
            case .leaf: "leaf"
            case .intermediate: "intermediate"
            case .root: "root"
            }
        }
    }

    public var code: Code
    public var message: String
    /// Set when the failure concerns one certificate (validity, missing extension, parsing).
    public var certificate: CertificatePosition?

    public init(_ code: Code, _ message: String, certificate: CertificatePosition? = nil) {
        self.code = code
        self.message = message
        self.certificate = certificate
    }

    public var description: String { "JWS rejected (\(code)): \(message)" }
}

extension ErrorCode<JWSError> {
    /// Not a compact JWS: part count, empty part, base64url alphabet or padding, header JSON.
    public static var malformed: Self { Self("malformed") }
    /// The header's `alg` is not exactly "ES256" (this includes "none" and HMAC algorithms).
    public static var unsupportedAlgorithm: Self { Self("unsupportedAlgorithm") }
    /// The `x5c` header does not hold exactly three certificates (leaf, intermediate, root).
    public static var wrongCertificateCount: Self { Self("wrongCertificateCount") }
    /// An `x5c` entry is not standard base64 of one DER certificate.
    public static var malformedCertificate: Self { Self("malformedCertificate") }
    /// The last `x5c` certificate is not byte-equal to any configured trusted root.
    public static var untrustedRoot: Self { Self("untrustedRoot") }
    /// The chain leaf -> intermediate -> root does not verify (signatures, constraints).
    public static var badCertificateChain: Self { Self("badCertificateChain") }
    /// The leaf or the intermediate lacks the extension OID that marks its role.
    public static var missingCertificateExtension: Self { Self("missingCertificateExtension") }
    /// A certificate's notAfter is at or before the verification time.
    public static var certificateExpired: Self { Self("certificateExpired") }
    /// A certificate's notBefore is after the verification time.
    public static var certificateNotYetValid: Self { Self("certificateNotYetValid") }
    /// The leaf's public key is not an EC P-256 key, so it cannot have made an ES256 signature.
    public static var unsupportedKey: Self { Self("unsupportedKey") }
    /// The signature is not 64 bytes of raw r||s, or does not verify over `header.payload`.
    public static var badSignature: Self { Self("badSignature") }
    /// A configured trust anchor is unusable (not PEM/DER, not self-signed, none given).
    public static var invalidTrustedRoot: Self { Self("invalidTrustedRoot") }
    /// OpenSSL failed for a reason unrelated to the input (allocation); retrying may help.
    public static var cryptoFailure: Self { Self("cryptoFailure") }
}
