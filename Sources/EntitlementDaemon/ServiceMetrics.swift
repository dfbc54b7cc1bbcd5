import EntitlementService
import Entitlements
import ServiceRuntime

/// The metric series entitlementd exports, named the Prometheus way (base units, `_total`).
///
/// Built once by the composition root; components get plain closures, so no library depends
/// on the registry.
struct ServiceMetrics: Sendable {
    let registry: MetricsRegistry
    let rpc: RPCMetrics
    let batchSize: Histogram
    let commitSeconds: Histogram

    init(registry: MetricsRegistry) {
        self.registry = registry
        rpc = RPCMetrics(registry: registry)
        batchSize = registry.histogram(
            "entitlementd_store_batch_writes", help: "writes committed together per transaction (group commit)",
            buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        _ = registry.counter("entitlementd_ownership_transfers_total", help: Self.transfersHelp)
        for reason in ["token", "bare_transaction_id", "transfer_policy"] {
            _ = registry.counter("entitlementd_claims_refused_total", help: Self.refusedHelp,
                                 labels: [("reason", reason)])
        }
        commitSeconds = registry.histogram(
            "entitlementd_store_commit_duration_seconds",
            help: "BEGIN..COMMIT of one batch, fsync included")
    }

    func storeCommitted(batchSize size: Int, seconds: Double) {
        batchSize.observe(Double(size))
        commitSeconds.observe(seconds)
    }

    func appleCall(environment: Environment, outcome: ReceiptVerifier.AppleCallOutcome, seconds: Double) {
        registry.increment(
            "entitlementd_apple_requests_total", help: "verifyReceipt calls by environment and Apple status",
            labels: [("environment", environment.rawValue), ("status", ServiceMetrics.statusLabel(outcome))])
        registry.histogram(
            "entitlementd_apple_request_duration_seconds", help: "verifyReceipt call latency",
            labels: [("environment", environment.rawValue)]
        ).observe(seconds)
    }

    /// The `status` label of entitlementd_apple_requests_total: Apple's status number, or
    /// `http_NNN`, `transport_error`, `unreadable_response` when there was no usable answer.
    static func statusLabel(_ outcome: ReceiptVerifier.AppleCallOutcome) -> String {
        switch outcome {
        case .status(let status): return String(status)
        case .failure(.transport): return "transport_error"
        case .failure(.httpStatus(let status)): return "http_\(status)"
        case .failure(.unreadableBody): return "unreadable_response"
        }
    }

    /// Ownership moves and refused claims: a purchase passing between many accounts, or claims
    /// refused in numbers, is sharing or theft to look into (`entitlementctl owners`).
    func ownership(_ signal: OwnershipSignal) {
        switch signal {
        case let .transferred(count):
            registry.increment("entitlementd_ownership_transfers_total", help: Self.transfersHelp, by: count)
        case .refused:
            registry.increment("entitlementd_claims_refused_total", help: Self.refusedHelp,
                               labels: [("reason", signal.refusalLabel ?? "")])
        }
    }

    static let transfersHelp = "purchases (chains) moved from one account to another"
    static let refusedHelp = "claims of another account's purchase refused, by reason (token, bare_transaction_id, "
        + "transfer_policy)"

    func notification(version: String, type: String, outcome: String) {
        registry.increment(
            "entitlementd_notifications_total", help: "App Store notifications by version, type and outcome",
            labels: [("version", version), ("type", type), ("outcome", outcome)])
    }
}
