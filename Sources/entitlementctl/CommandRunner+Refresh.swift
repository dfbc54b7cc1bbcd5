import EntitlementAPI

extension CommandRunner {
    /// `refresh USER`: RefreshEntitlements, then the entitlements as `check` prints them.
    func refresh(user: String) throws -> ExitCode {
        let response: EntitlementV1.RefreshEntitlementsResponse = try client.unary(
            path: CommandRunner.service + "RefreshEntitlements",
            request: EntitlementV1.RefreshEntitlementsRequest(userID: user), metadata: metadata, timeout: timeout)
        print(json ? ProtoJSON.refresh(response).rendered : TableOutput.refresh(response))
        return .ok
    }
}

extension ProtoJSON {
    static func refresh(_ r: EntitlementV1.RefreshEntitlementsResponse) -> JSONValue {
        .object([("entitlements", .array(r.entitlements.map(entitlement))),
                 ("newTransactions", .number(Int64(r.newTransactions))), ("refreshedAtMs", .int64(r.refreshedAtMs))])
    }
}

extension TableOutput {
    static func refresh(_ response: EntitlementV1.RefreshEntitlementsResponse) -> String {
        let count = response.newTransactions
        let summary = "refreshed from Apple at \(time(response.refreshedAtMs)): "
            + "\(count) new transaction\(count == 1 ? "" : "s")"
        return [summary, entitlements(response.entitlements)].joined(separator: "\n")
    }
}
