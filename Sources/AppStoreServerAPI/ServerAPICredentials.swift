import JWS

/// Who the service is to the App Store Server API: the In-App Purchase key and the ids App
/// Store Connect shows next to it, plus the app's bundle id (the JWT's `bid`).
///
/// Holds the private key, so it has no `description` of its own beyond the ids: printing a
/// configuration can never print the key.
public struct ServerAPICredentials: Sendable, CustomStringConvertible {
    public var keyID: String
    public var issuerID: String
    public var bundleID: String
    public var key: ES256SigningKey

    public init(keyID: String, issuerID: String, bundleID: String, key: ES256SigningKey) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
        self.key = key
    }

    public var description: String { "key \(keyID), issuer \(issuerID), bundle \(bundleID)" }
}
