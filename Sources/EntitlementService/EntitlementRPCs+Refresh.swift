import EntitlementAPI
import RPCCore

/// RefreshEntitlements asked for by a person (the console), with who and why in the audit log.
extension EntitlementRPCs {
    /// RefreshEntitlements for `caller`, who must hold an operator role: the same refresh as the
    /// RPC, logged with the actor and `reason` before Apple is asked, so an attempt that fails
    /// at Apple is on record too. What it finds lands in history as Apple's own events.
    public func refreshEntitlements(
        _ request: EntitlementV1.RefreshEntitlementsRequest, by caller: Principal, reason: String,
        deadline: ContinuousClock.Instant?
    ) async throws -> EntitlementV1.RefreshEntitlementsResponse {
        guard !reason.allSatisfy(\.isWhitespace) else {
            throw RPCError(.invalidArgument, "reason is required: say why the entitlements are refreshed")
        }
        guard let refresh else { throw RPCError(.failedPrecondition, ReceiptSubmission.serverAPIRequired) }
        logger?.info("entitlements refresh requested", [
            ("actor", caller.actor), ("user_id", request.userID), ("reason", reason)])
        return try await refresh.refresh(request, deadline: deadline)
    }
}
