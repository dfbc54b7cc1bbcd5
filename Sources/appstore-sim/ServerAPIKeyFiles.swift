import AppStoreSimulator
import Foundation
import JWS
import ServiceRuntime

/// The Server API key pair of `appstore-sim serve`: loaded from `--api-key` or generated, and
/// its private half written to `--api-key-out` as the `.p8` a client signs its JWTs with.
enum ServerAPIKeyFiles {
    static func key(_ flags: ParsedFlags, bundleID: String) throws -> ServerAPIKey {
        let pair: ES256SigningKey
        if let path = flags.string("api-key") {
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw FlagError("--api-key \(path) cannot be read")
            }
            do {
                pair = try ES256SigningKey(pkcs8PEM: Array(pem.utf8))
            } catch {
                throw FlagError("--api-key \(path): \(error.message)")
            }
        } else {
            pair = try ES256SigningKey.generate()
        }
        if let path = flags.string("api-key-out") {
            let pem = try pair.pkcs8PEM()
            // Owner-only, like any private key; written whole and renamed into place.
            guard FileManager.default.createFile(
                atPath: path + ".tmp", contents: Data(pem.utf8), attributes: [.posixPermissions: 0o600]),
                rename(path + ".tmp", path) == 0
            else {
                throw FlagError("--api-key-out \(path) cannot be written")
            }
        }
        return ServerAPIKey(
            keyID: flags.string("api-key-id")!, issuerID: flags.string("api-issuer-id")!, bundleID: bundleID,
            key: pair)
    }
}
