import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

/// GrantEntitlement and RevokeGrant: entitlements given and taken back by hand.
///
/// Operator methods: a token needs the support or admin role (``Principal/operators``), and the
/// caller's token name is the actor history records; the token itself goes nowhere.
extension EntitlementRPCs {
    func registerGrants(into router: inout RPCRouter) {
        router.register(EntitlementRPCs.servicePrefix + "GrantEntitlement", roles: Principal.operators) {
            (
                request: EntitlementV1.GrantEntitlementRequest, context: RPCContext
            ) async throws -> EntitlementV1.GrantEntitlementResponse in
            try await self.grantEntitlement(request, by: context.principal)
        }
        router.register(EntitlementRPCs.servicePrefix + "RevokeGrant", roles: Principal.operators) {
            (
                request: EntitlementV1.RevokeGrantRequest, context: RPCContext
            ) async throws -> EntitlementV1.RevokeGrantResponse in
            try await self.revokeGrant(request, by: context.principal)
        }
    }

    /// GrantEntitlement for `caller`, who must already hold an operator role: public so the
    /// console grants through the same checks, history and audit log as the RPC.
    public func grantEntitlement(
        _ request: EntitlementV1.GrantEntitlementRequest, by caller: Principal
    ) async throws -> EntitlementV1.GrantEntitlementResponse {
        let store = try grantStore(userID: request.userID)
        guard request.startsAtMs >= 0 else {
            throw RPCError(.invalidArgument, "starts_at_ms must be 0 (now) or a positive Unix time in milliseconds")
        }
        let recordedAtMs = now()
        let startsAtMs = request.startsAtMs == 0 ? recordedAtMs : request.startsAtMs
        if let refusal = Grant.refusal(entitlementID: request.entitlementID, reason: request.reason,
                                       startsAtMs: startsAtMs, expiresAtMs: request.expiresAtMs) {
            throw RPCError(.invalidArgument, refusal)
        }
        let grant = Grant(
            grantID: Self.newGrantID(), entitlementID: request.entitlementID, startsAtMs: startsAtMs,
            expiresAtMs: request.expiresAtMs, actor: caller.actor, reason: request.reason)
        let stored = try await withStoreErrors {
            try await store.grant(GrantWrite(userID: request.userID, grant: grant,
                                             idempotencyKey: request.idempotencyKey, recordedAtMs: recordedAtMs))
        }
        if stored.grantID == grant.grantID {
            logger?.info("entitlement granted", [
                ("actor", caller.actor), ("user_id", request.userID), ("grant_id", stored.grantID),
                ("entitlement_id", stored.entitlementID), ("expires_at_ms", String(stored.expiresAtMs)),
                ("reason", stored.reason)])
        }
        return EntitlementV1.GrantEntitlementResponse(entitlement: answer(for: stored), grantID: stored.grantID)
    }

    /// RevokeGrant for `caller` (an operator), public for the console as ``grantEntitlement(_:by:)``.
    public func revokeGrant(
        _ request: EntitlementV1.RevokeGrantRequest, by caller: Principal
    ) async throws -> EntitlementV1.RevokeGrantResponse {
        let store = try grantStore(userID: request.userID)
        guard !request.grantID.isEmpty else {
            throw RPCError(.invalidArgument, "grant_id is required: the id GrantEntitlement answered")
        }
        guard !request.reason.allSatisfy(\.isWhitespace) else {
            throw RPCError(.invalidArgument, "reason is required: say why the grant is revoked (history shows it)")
        }
        let revokedAtMs = now()
        let revoked = try await withStoreErrors {
            try await store.revokeGrant(GrantRevocation(userID: request.userID, grantID: request.grantID,
                                                        actor: caller.actor, reason: request.reason,
                                                        revokedAtMs: revokedAtMs))
        }
        // A grant revoked before is answered as it was; only this revocation is logged.
        if revoked.revokedAtMs == revokedAtMs && revoked.revocationReason == request.reason {
            logger?.info("grant revoked", [
                ("actor", caller.actor), ("user_id", request.userID), ("grant_id", revoked.grantID),
                ("reason", request.reason)])
        }
        return EntitlementV1.RevokeGrantResponse(entitlement: answer(for: revoked))
    }

    private func grantStore(userID: String) throws -> any GrantStore {
        guard !userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        guard let grants else { throw RPCError(.unimplemented, "this server's store keeps no grants") }
        return grants
    }

    /// The grant's row as CheckEntitlement shows it now, or at its start when that is later
    /// (a grant that has not started is in no answer yet).
    private func answer(for grant: Grant) -> EntitlementV1.Entitlement {
        let entitlement = grant.entitlement(at: .now(max(now(), grant.startsAtMs)))
            ?? grant.entitlement(at: .now(grant.startsAtMs))!
        return APIMapping.entitlement(entitlement)
    }

    /// `g` and 16 random hex digits: unguessable enough that ids never collide, short enough to
    /// read out on a support call.
    static func newGrantID() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "g" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}
