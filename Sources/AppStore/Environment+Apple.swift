import Entitlements

extension Environment {
    /// Reads Apple's environment names: "Production" (verifyReceipt, V2), "PROD" (V1
    /// notifications), "Sandbox"; `nil` for anything else.
    ///
    /// Xcode's StoreKit testing ("Xcode", "LocalTesting") reads as sandbox: such data is never
    /// production, and whether to accept it at all is the JWS verifier's opt-in decision, taken
    /// before anything is decoded here.
    init?(appleName: String) {
        switch appleName.lowercased() {
        case "production", "prod": self = .production
        case "sandbox", "xcode", "localtesting": self = .sandbox
        default: return nil
        }
    }
}

extension AppleJSONObject {
    func environment(_ key: String) throws(AppStoreFormatError) -> Environment? {
        guard let name = try string(key) else { return nil }
        guard let environment = Environment(appleName: name) else {
            throw invalid(key, expected: "\"Production\", \"PROD\" or \"Sandbox\"")
        }
        return environment
    }

    /// The environment every signed payload must name: without it nothing can be filed.
    func requiredEnvironment(_ key: String) throws(AppStoreFormatError) -> Environment {
        guard let environment = try environment(key) else { throw missing(key) }
        return environment
    }
}
