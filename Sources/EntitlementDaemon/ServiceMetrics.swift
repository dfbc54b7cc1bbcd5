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

    func notification(version: String, type: String, outcome: String) {
        registry.increment(
            "entitlementd_notifications_total", help: "App Store notifications by version, type and outcome",
            labels: [("version", version), ("type", type), ("outcome", outcome)])
    }
}
