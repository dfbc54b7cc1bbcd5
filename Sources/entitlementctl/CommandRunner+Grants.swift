import EntitlementAPI
import ServiceRuntime

extension CommandRunner {
    /// `grant USER ENTITLEMENT --for 7d --reason "..."`: GrantEntitlement from now (or
    /// `--starts`) for the duration; prints the grant id and the grant's row as `check` does.
    ///
    /// The start is sent explicitly (this machine's clock) so the grant lasts exactly `--for`.
    func grant(user: String, entitlementID: String) throws -> ExitCode {
        guard let length = try arguments.local.duration("for"), length > .zero else {
            throw FlagError("'grant' needs --for DURATION (e.g. --for 7d): how long the grant lasts")
        }
        var startsAtMs = WallClock.unixMilliseconds()
        if let starts = arguments.local.string("starts") {
            guard let milliseconds = Timestamps.milliseconds(parsing: starts), milliseconds > 0 else {
                throw FlagError(
                    "--starts must be ISO 8601 (2026-04-01T00:00:00Z) or Unix milliseconds, got '\(starts)'")
            }
            startsAtMs = milliseconds
        }
        let request = EntitlementV1.GrantEntitlementRequest(
            userID: user, entitlementID: entitlementID, startsAtMs: startsAtMs,
            expiresAtMs: startsAtMs + length.inMilliseconds, reason: arguments.local.string("reason") ?? "",
            idempotencyKey: arguments.local.string("idempotency-key") ?? "")
        let response: EntitlementV1.GrantEntitlementResponse = try client.unary(
            path: CommandRunner.service + "GrantEntitlement", request: request, metadata: metadata, timeout: timeout)
        let rows = response.entitlement.map { [$0] } ?? []
        if json {
            print(JSONValue.object([("grantId", .string(response.grantID)),
                                    ("entitlement", rows.first.map(ProtoJSON.entitlement) ?? .object([]))]).rendered)
        } else {
            print(["granted \(entitlementID) to \(user): grant \(response.grantID)",
                   TableOutput.entitlements(rows)].joined(separator: "\n"))
        }
        return .ok
    }

    /// `revoke-grant USER GRANT_ID --reason "..."`: RevokeGrant; prints the grant's row, now REVOKED.
    func revokeGrant(user: String, grantID: String) throws -> ExitCode {
        let request = EntitlementV1.RevokeGrantRequest(
            userID: user, grantID: grantID, reason: arguments.local.string("reason") ?? "")
        let response: EntitlementV1.RevokeGrantResponse = try client.unary(
            path: CommandRunner.service + "RevokeGrant", request: request, metadata: metadata, timeout: timeout)
        let rows = response.entitlement.map { [$0] } ?? []
        if json {
            print((rows.first.map(ProtoJSON.entitlement) ?? .object([])).rendered)
        } else {
            print(["revoked grant \(grantID) of \(user)", TableOutput.entitlements(rows)].joined(separator: "\n"))
        }
        return .ok
    }
}
