import EntitlementPorts
import Entitlements

/// Grants in memory: the reference the SQL stores' contract tests hold them to.
extension InMemoryEntitlementStore: GrantStore {
    public func grant(_ write: GrantWrite) async throws -> Grant {
        try applyWithChanges { facts, _ in
            if !write.idempotencyKey.isEmpty,
               let existingID = facts.grantIDsByKey[write.userID]?[write.idempotencyKey],
               let existing = facts.grants[write.userID]?.first(where: { $0.grantID == existingID }) {
                return (existing, [])
            }
            facts.grants[write.userID, default: []].append(write.grant)
            if !write.idempotencyKey.isEmpty {
                facts.grantIDsByKey[write.userID, default: [:]][write.idempotencyKey] = write.grant.grantID
            }
            _ = facts.insert(write.grant.grantedEvent(recordedAtMs: write.recordedAtMs), intoHistoryOf: write.userID)
            return (write.grant, [write.userID])
        }
    }

    public func revokeGrant(_ revocation: GrantRevocation) async throws -> Grant {
        try applyWithChanges { facts, _ in
            guard let index = facts.grants[revocation.userID]?.firstIndex(where: { $0.grantID == revocation.grantID })
            else { throw StoreError.unknownGrant(revocation.grantID, userID: revocation.userID) }
            var grant = facts.grants[revocation.userID]![index]
            guard grant.revokedAtMs == nil else { return (grant, []) }
            grant.revokedAtMs = revocation.revokedAtMs
            grant.revokedBy = revocation.actor
            grant.revocationReason = revocation.reason
            facts.grants[revocation.userID]![index] = grant
            if let event = grant.revokedEvent { _ = facts.insert(event, intoHistoryOf: revocation.userID) }
            return (grant, [revocation.userID])
        }
    }
}
