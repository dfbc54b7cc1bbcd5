import Entitlements

/// How far reconciliation with Apple's notification history has got, per environment: the
/// durable watermark that lets it resume after a restart instead of starting over.
///
/// A separate port from ``EntitlementRepository`` because it is one value per environment,
/// written once per reconciliation run, and nothing on the read path needs it. The SQLite
/// store and the in-memory store implement both; a store shared by replicas (PostgreSQL) will
/// add a lease so only one replica reconciles at a time.
public protocol ReconciliationProgress: Sendable {
    /// Everything Apple signed in `environment` before this instant (Unix ms) has been durably
    /// applied; nil before the first complete run.
    func reconciledThrough(_ environment: Environment) async throws -> Int64?

    /// Records, durably, that everything in `environment` before `unixMs` has been applied.
    ///
    /// Never moves backwards: an older instant (an on-demand run over an earlier window) leaves
    /// the stored one alone. Returns only once the value is durable.
    func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws
}
