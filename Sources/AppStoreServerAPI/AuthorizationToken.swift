import Foundation

/// The claims of one Server API bearer token (Apple's "Generating JSON Web Tokens for API
/// requests"): ES256, `kid` the key id, `iss` the issuer id, `aud` "appstoreconnect-v1",
/// `bid` the bundle id, `exp` at most 60 minutes after `iat`.
public struct AuthorizationClaims: Sendable, Equatable {
    public static let audience = "appstoreconnect-v1"
    /// Apple refuses tokens living longer than this.
    public static let maximumLifetimeSeconds: Int64 = 3600

    public var keyID: String
    public var issuerID: String
    public var bundleID: String
    public var issuedAtSeconds: Int64
    public var expiresAtSeconds: Int64

    public init(keyID: String, issuerID: String, bundleID: String, issuedAtSeconds: Int64, lifetimeSeconds: Int64) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.issuedAtSeconds = issuedAtSeconds
        self.expiresAtSeconds = issuedAtSeconds + min(lifetimeSeconds, AuthorizationClaims.maximumLifetimeSeconds)
    }

    /// The JOSE header's exact bytes.
    public var headerJSON: [UInt8] {
        Array("{\"alg\":\"ES256\",\"kid\":\(Self.quoted(keyID)),\"typ\":\"JWT\"}".utf8)
    }

    /// The claims' exact bytes; `iat`/`exp` are JSON numbers (NumericDate), as Apple wants.
    public var payloadJSON: [UInt8] {
        Array(("{\"iss\":\(Self.quoted(issuerID)),\"iat\":\(issuedAtSeconds),\"exp\":\(expiresAtSeconds),"
               + "\"aud\":\"\(Self.audience)\",\"bid\":\(Self.quoted(bundleID))}").utf8)
    }

    /// A JSON string literal; the ids are plain ASCII in practice, but a configured value must
    /// never be able to break out of its string.
    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }
}
