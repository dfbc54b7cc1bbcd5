/// A JWS whose signature and certificate chain verified; its payload can be trusted.
public struct VerifiedJWS: Sendable {
    /// The protected header's `alg`; always "ES256" today, kept so callers can log it.
    public let algorithm: String
    /// The decoded protected header (JSON bytes).
    public let header: [UInt8]
    /// The decoded payload (JSON bytes, exactly as signed).
    public let payload: [UInt8]
    /// The signing (leaf) certificate's DER, for audit logs and key-rotation monitoring.
    public let signingCertificate: [UInt8]
}
