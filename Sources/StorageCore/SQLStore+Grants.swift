import EntitlementPorts
import Entitlements

/// Grants through the writer's group commit, once for every engine (``GrantStore``).
extension SQLStore: GrantStore {
    public nonisolated func grant(_ write: GrantWrite) async throws -> Grant {
        try await submit { .grant(write, $0) }
    }

    public nonisolated func revokeGrant(_ revocation: GrantRevocation) async throws -> Grant {
        try await submit { .revokeGrant(revocation, $0) }
    }
}
