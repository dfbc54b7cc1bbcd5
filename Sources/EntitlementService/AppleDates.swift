import Foundation

/// Reads `signedDate` from a JWS payload's JSON, to choose the instant its chain is checked at.
enum AppleDates {
    static func signedDate(in payload: [UInt8]) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              let number = object["signedDate"] as? NSNumber else { return nil }
        let value = number.int64Value
        return value > 0 ? value : nil
    }
}
