import AppStoreServerAPI
import Entitlements
import ServiceRuntime

/// App Store Server API requests: how many by endpoint, HTTP status and environment, and how
/// long they took. `status` is the HTTP status, or `transport_error` when none came back.
struct ServerAPIMetrics: Sendable {
    let registry: MetricsRegistry

    func request(endpoint: AppStoreServerClient.Endpoint, environment: Environment, status: Int, seconds: Double) {
        let statusLabel = status == 0 ? "transport_error" : String(status)
        registry.increment(
            "entitlementd_app_store_api_requests_total",
            help: "App Store Server API requests by endpoint, HTTP status and environment",
            labels: [("endpoint", endpoint.rawValue), ("status", statusLabel), ("environment", environment.rawValue)])
        registry.histogram(
            "entitlementd_app_store_api_request_duration_seconds", help: "App Store Server API request latency",
            labels: [("endpoint", endpoint.rawValue), ("environment", environment.rawValue)]
        ).observe(seconds)
    }
}
