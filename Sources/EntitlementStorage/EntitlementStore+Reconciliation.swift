import EntitlementPorts
import Entitlements

/// The reconciliation watermarks, in the `reconciliation_watermarks` table, through the
/// writer's queue (``StoreCore/reconciledThrough(_:)``): once per run per environment, so the
/// detour through the writer thread costs nothing.
extension EntitlementStore: ReconciliationProgress {
    public func reconciledThrough(_ environment: Environment) async throws -> Int64? {
        try await core.reconciledThrough(environment)
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws {
        try await core.recordReconciled(environment, through: unixMs)
    }
}
