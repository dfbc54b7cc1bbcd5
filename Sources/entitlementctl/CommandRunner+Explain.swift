import EntitlementAPI
import ServiceRuntime

extension CommandRunner {
    /// `explain`: the same question as `check`, answered with the reasons. Exits 0 whatever the
    /// state: it is for reading, and `check` is the command scripts branch on.
    func explain(user: String) throws -> ExitCode {
        let request = EntitlementV1.ExplainEntitlementRequest(
            userID: user, productID: arguments.local.string("product") ?? "",
            entitlementID: arguments.local.string("entitlement") ?? "", atMs: try atMilliseconds())
        let response: EntitlementV1.ExplainEntitlementResponse = try client.unary(
            path: CommandRunner.service + "ExplainEntitlement", request: request, metadata: metadata,
            timeout: timeout)
        print(json ? ProtoJSON.explain(response).rendered : TableOutput.explain(response))
        return .ok
    }

    /// `--at` as Unix milliseconds; 0 (now) when not given.
    func atMilliseconds() throws(FlagError) -> Int64 {
        guard let at = arguments.local.string("at") else { return 0 }
        guard let milliseconds = Timestamps.milliseconds(parsing: at), milliseconds > 0 else {
            throw FlagError("--at must be ISO 8601 (2026-04-01T00:00:00Z) or Unix milliseconds, got '\(at)'")
        }
        return milliseconds
    }
}
