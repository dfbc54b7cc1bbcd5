import AppStoreServerAPI
import EntitlementService
import Entitlements
import Foundation
import JWS
import ServiceRuntime

/// The App Store Server API flags and what they resolve to at startup.
extension DaemonFlags {
    static let serverAPISpecs: [FlagSpec] = [
        FlagSpec("app-store-key", value: "PATH",
                 help: "the In-App Purchase key (.p8, PEM PKCS#8 P-256) for the App Store Server API; "
                    + "with --app-store-key-id, --app-store-issuer-id and --bundle-id"),
        FlagSpec("app-store-key-id", value: "ID", help: "the In-App Purchase key's id (the JWT's kid)"),
        FlagSpec("app-store-issuer-id", value: "ID", help: "the App Store Connect issuer id (the JWT's iss)"),
        FlagSpec("app-store-api-url", value: "URL", default: "https://api.storekit.apple.com",
                 help: "the App Store Server API, production"),
        FlagSpec("app-store-api-sandbox-url", value: "URL", default: "https://api.storekit-sandbox.apple.com",
                 help: "the App Store Server API, sandbox (asked when production answers 4040010/4040005)"),
        FlagSpec("receipt-mode", value: "MODE", default: "auto",
                 help: "receipt_data goes to: auto (the Server API with a key, else verifyReceipt), "
                    + "server-api or verify-receipt"),
        FlagSpec("app-store-api-rate", value: "N", default: "40",
                 help: "requests per second to the App Store Server API at most (Apple allows 50)"),
        FlagSpec("refund-preference", value: "PREF", default: "none",
                 help: "the refund outcome asked of Apple in every consumption answer: none (left out), decline, "
                    + "grant-full or grant-prorated"),
    ]

    static let keyTriple = ["app-store-key", "app-store-key-id", "app-store-issuer-id"]

    /// The Server API client's configuration, or nil without a key; reads and checks the key.
    /// Throws a ``FlagError`` (exit 2) naming what is missing or wrong; never echoes the key.
    static func serverAPIConfiguration(_ flags: ParsedFlags) throws -> AppStoreServerClient.Configuration? {
        guard let rateText = flags.string("app-store-api-rate"), let rate = Double(rateText), rate > 0,
              rate <= 10_000 else {
            throw FlagError("--app-store-api-rate must be a number of requests per second above 0 (e.g. 40)")
        }
        let given = keyTriple.filter { flags.string($0) != nil }
        if !given.isEmpty && given.count < keyTriple.count {
            let missing = keyTriple.filter { flags.string($0) == nil }.map { "--" + $0 }
            throw FlagError("--app-store-key, --app-store-key-id and --app-store-issuer-id go together: missing "
                            + missing.joined(separator: ", "))
        }
        guard let path = flags.string("app-store-key"), let keyID = flags.string("app-store-key-id"),
              let issuerID = flags.string("app-store-issuer-id") else {
            return nil
        }
        guard let bundleID = flags.string("bundle-id") else {
            throw FlagError("--app-store-key needs --bundle-id: the App Store Server API token names the app (bid)")
        }
        guard let pem = FileManager.default.contents(atPath: path) else {
            throw FlagError("--app-store-key \(path) cannot be read")
        }
        let key: ES256SigningKey
        do {
            key = try ES256SigningKey(pkcs8PEM: [UInt8](pem))
        } catch {
            throw FlagError("--app-store-key \(path): \(error.message)")
        }
        return AppStoreServerClient.Configuration(
            credentials: ServerAPICredentials(keyID: keyID, issuerID: issuerID, bundleID: bundleID, key: key),
            productionURL: try httpURL(flags, "app-store-api-url"),
            sandboxURL: try httpURL(flags, "app-store-api-sandbox-url"), requestsPerSecond: rate)
    }

    /// --refund-preference.
    static func refundPreference(_ flags: ParsedFlags) throws -> RefundPreference {
        guard let preference = RefundPreference(rawValue: flags.string("refund-preference") ?? "none") else {
            throw FlagError("--refund-preference must be none, decline, grant-full or grant-prorated")
        }
        return preference
    }

    /// --receipt-mode against whether a key is configured.
    static func receiptRoute(_ flags: ParsedFlags, hasKey: Bool) throws -> ReceiptRoute {
        switch flags.string("receipt-mode") {
        case "auto": return hasKey ? .serverAPI(fallbackToVerifyReceipt: true) : .verifyReceipt
        case "verify-receipt": return .verifyReceipt
        case "server-api":
            guard hasKey else {
                throw FlagError("--receipt-mode server-api needs the App Store Server API: set --app-store-key, "
                                + "--app-store-key-id, --app-store-issuer-id and --bundle-id")
            }
            return .serverAPI(fallbackToVerifyReceipt: false)
        default: throw FlagError("--receipt-mode must be auto, server-api or verify-receipt")
        }
    }

    static func httpURL(_ flags: ParsedFlags, _ name: String) throws -> URL {
        guard let text = flags.string(name), let url = URL(string: text), url.host != nil,
              url.scheme == "https" || url.scheme == "http" else {
            throw FlagError("--\(name) must be an http(s) URL")
        }
        return url
    }
}
