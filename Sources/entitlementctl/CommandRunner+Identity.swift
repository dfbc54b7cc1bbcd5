import EntitlementAPI
import Foundation
import ServiceRuntime

extension CommandRunner {
    /// `app-account-token USER`: the token alone on stdout, so a script can pass it on
    /// (`TOKEN=$(entitlementctl app-account-token alice)`).
    func appAccountToken(user: String) throws -> ExitCode {
        let response: EntitlementV1.GetAppAccountTokenResponse = try client.unary(
            path: CommandRunner.service + "GetAppAccountToken",
            request: EntitlementV1.GetAppAccountTokenRequest(userID: user), metadata: metadata, timeout: timeout)
        print(json ? "{\"appAccountToken\":\"\(response.appAccountToken)\"}" : response.appAccountToken)
        return .ok
    }

    /// `owners ORIGINAL_TX`: the chain's owners from the admin endpoint, oldest first.
    func owners(originalTransactionID: String) throws -> ExitCode {
        let admin = try AdminClient(arguments: arguments, timeout: timeout)
        let query = originalTransactionID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let body = try admin.call("GET", "/admin/owners?original_transaction_id=" + query)
        print(json ? body : try OwnersTable.render(body))
        return .ok
    }
}

/// The `owners` table, from the admin endpoint's JSON.
enum OwnersTable {
    static func render(_ json: String) throws -> String {
        let owners = try AdminAnswer.list("owners", in: json, "owners answer")
        guard !owners.isEmpty else { return "no user ever owned this purchase" }
        var lines = ["USER\tSINCE\tUNTIL"]
        for owner in owners {
            let since = (owner["since_ms"] as? NSNumber).map { TableOutput.time($0.int64Value) } ?? "?"
            let until = (owner["until_ms"] as? NSNumber).map { TableOutput.time($0.int64Value) } ?? "now"
            lines.append("\(owner["user_id"] as? String ?? "")\t\(since)\t\(until)")
        }
        if owners.count > 2 {
            lines.append("\(owners.count) accounts have owned this purchase: it may be shared")
        }
        return lines.joined(separator: "\n")
    }
}
