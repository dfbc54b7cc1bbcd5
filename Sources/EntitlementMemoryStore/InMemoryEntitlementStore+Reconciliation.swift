import EntitlementPorts
import Entitlements

/// The reconciliation watermark in memory: per environment, never moving backwards.
extension InMemoryEntitlementStore: ReconciliationProgress {
    public func reconciledThrough(_ environment: Environment) async throws -> Int64? {
        reconciledThrough.withLock { $0[environment] }
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws {
        reconciledThrough.withLock { $0[environment] = max($0[environment] ?? unixMs, unixMs) }
    }
}
