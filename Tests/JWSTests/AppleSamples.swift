import Foundation
import JWS

/// The real Apple-signed tokens in `../shared/samples/real-apple-jws` and their index.
///
/// Read in place (never copied into the repository): the shared folder sits next to the repo
/// on every developer machine and in CI.
struct AppleSamples {
    struct Sample {
        let file: String
        let verified: Bool
        let reason: String?
        let signedDate: NSNumber
        let decodedPayload: NSDictionary
        let decodedNested: [String: NSDictionary]
        let nestedVerified: [String]
        let token: String
    }

    /// Tests/JWSTests/AppleSamples.swift -> the repository root is three levels up.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/samples").standardizedFileURL

    static var rootPEM: String {
        get throws { try String(contentsOf: directory.appendingPathComponent("AppleRootCA-G3.pem"), encoding: .utf8) }
    }

    static func load() throws -> [Sample] {
        let folder = directory.appendingPathComponent("real-apple-jws")
        let index = try JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("index.json")))
        guard let entries = (index as? [String: Any])?["samples"] as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return try entries.map { entry in
            let file = entry["file"] as! String
            return Sample(
                file: file,
                verified: entry["verified"] as! Bool,
                reason: entry["reason"] as? String,
                signedDate: entry["signedDate"] as! NSNumber,
                decodedPayload: entry["decodedPayload"] as! NSDictionary,
                decodedNested: (entry["decodedNested"] as? [String: NSDictionary]) ?? [:],
                nestedVerified: (entry["nestedVerified"] as? [String]) ?? [],
                token: try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
        }
    }

    /// The payload's JSON object, read without verification.
    static func unverifiedObject(_ compact: String) throws -> NSDictionary {
        let payload = try JWSVerifier.unverifiedPayload(compact)
        return try JSONSerialization.jsonObject(with: Data(payload)) as! NSDictionary
    }

    /// The time to verify at: the payload's `signedDate`, or, for a notification without one,
    /// its nested signed transaction's (the rule the service uses; every indexed notification
    /// has a top-level signedDate, so the fallback is exercised by a unit test only).
    static func signingTime(of payload: NSDictionary) throws -> Int64? {
        if let date = payload["signedDate"] as? NSNumber { return date.int64Value }
        guard let data = payload["data"] as? NSDictionary,
              let nested = data["signedTransactionInfo"] as? String else { return nil }
        return (try unverifiedObject(nested)["signedDate"] as? NSNumber)?.int64Value
    }
}
