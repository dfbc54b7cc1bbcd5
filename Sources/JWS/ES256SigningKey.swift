/// An EC P-256 private key that makes ES256 signatures: the App Store Server API's In-App
/// Purchase key (`.p8`), or a fresh one for a simulator or a test.
///
/// A value over an immutable OpenSSL key, so one instance signs from many tasks at once.
/// It deliberately has no `description` that could print key material; ``pkcs8PEM()`` is the
/// only way out, for writing a `.p8` a simulator hands to the service.
public struct ES256SigningKey: Sendable {
    let key: ECPrivateKey

    /// Reads a PEM PKCS#8 private key (the `.p8` file's bytes); throws unless it is EC P-256.
    public init(pkcs8PEM: [UInt8]) throws(JWSError) {
        key = try ECPrivateKey(pkcs8PEM: pkcs8PEM)
    }

    /// A new random P-256 key.
    public static func generate() throws(JWSError) -> ES256SigningKey {
        ES256SigningKey(key: try ECPrivateKey(curve: "P-256"))
    }

    init(key: ECPrivateKey) { self.key = key }

    /// The key as a `.p8` file's contents.
    public func pkcs8PEM() throws(JWSError) -> String { try key.pkcs8PEM() }

    /// An ECDSA P-256 / SHA-256 signature of `message` as DER (an ECDSA-Sig-Value), the form
    /// StoreKit takes for a promotional offer's signature (base64 of these bytes).
    public func signDER(_ message: [UInt8]) throws(JWSError) -> [UInt8] {
        try key.signDER(message)
    }

    /// A compact JWS `header.payload.signature` over the exact header and payload bytes given
    /// (JSON, normally), signed ES256 with raw r||s as RFC 7518 3.4 wants.
    public func signCompact(header: [UInt8], payload: [UInt8]) throws(JWSError) -> String {
        let signingInput = Base64.encodeURL(header) + "." + Base64.encodeURL(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64.encodeURL(signature)
    }
}
