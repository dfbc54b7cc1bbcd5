/// Why a compact JWS (or a trust configuration) was rejected.
///
/// `code` is for programs (metrics labels, mapping to an API status); `message` is for the
/// operator and says what was wrong with which certificate, so a rejected token can be diagnosed
/// from one log line. Messages name certificates and OIDs, never payload contents.
public struct JWSError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure. A struct wrapping a private enum, so codes can be added without
    /// breaking callers that switch over the ones they know.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case malformed, unsupportedAlgorithm, wrongCertificateCount, malformedCertificate
            case untrustedRoot, badCertificateChain, missingCertificateExtension
            case certificateExpired, certificateNotYetValid, unsupportedKey, badSignature
            case invalidTrustedRoot, cryptoFailure
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// Not a compact JWS: part count, empty part, base64url alphabet or padding, header JSON.
        public static let malformed = Code(.malformed)
        /// The header's `alg` is not exactly "ES256" (this includes "none" and HMAC algorithms).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The `x5c` header does not hold exactly three certificates (leaf, intermediate, root).
        public static let wrongCertificateCount = Code(.wrongCertificateCount)
        /// An `x5c` entry is not standard base64 of one DER certificate.
        public static let malformedCertificate = Code(.malformedCertificate)
        /// The last `x5c` certificate is not byte-equal to any configured trusted root.
        public static let untrustedRoot = Code(.untrustedRoot)
        /// The chain leaf -> intermediate -> root does not verify (signatures, constraints).
        public static let badCertificateChain = Code(.badCertificateChain)
        /// The leaf or the intermediate lacks the extension OID that marks its role.
        public static let missingCertificateExtension = Code(.missingCertificateExtension)
        /// A certificate's notAfter is at or before the verification time.
        public static let certificateExpired = Code(.certificateExpired)
        /// A certificate's notBefore is after the verification time.
        public static let certificateNotYetValid = Code(.certificateNotYetValid)
        /// The leaf's public key is not an EC P-256 key, so it cannot have made an ES256 signature.
        public static let unsupportedKey = Code(.unsupportedKey)
        /// The signature is not 64 bytes of raw r||s, or does not verify over `header.payload`.
        public static let badSignature = Code(.badSignature)
        /// A configured trust anchor is unusable (not PEM/DER, not self-signed, none given).
        public static let invalidTrustedRoot = Code(.invalidTrustedRoot)
        /// OpenSSL failed for a reason unrelated to the input (allocation); retrying may help.
        public static let cryptoFailure = Code(.cryptoFailure)

        public var description: String { wrapped.rawValue }
    }

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
