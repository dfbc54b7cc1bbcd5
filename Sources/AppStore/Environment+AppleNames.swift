import Entitlements

extension Environment {
    /// The name verifyReceipt and V2 payloads use: "Production" or "Sandbox".
    public var appleName: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        }
    }

    /// The name V1 notifications use at their top level: "PROD" or "Sandbox".
    public var appleV1Name: String {
        switch self {
        case .production: "PROD"
        case .sandbox: "Sandbox"
        }
    }
}
