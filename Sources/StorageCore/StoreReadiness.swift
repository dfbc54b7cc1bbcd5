/// Whether a store can serve its callers now: what the daemon's `/healthz` answers, so that a
/// load balancer (haproxy's health checks) sends calls only to replicas that can serve them.
public enum StoreReadiness: Sendable, Equatable {
    case ready
    /// Calls would fail or read stale facts; `reason` tells the operator what is wrong and that
    /// the store is trying to recover (never a password).
    case unavailable(reason: String)
}
