@testable import EntitlementDaemon
import ServiceRuntime
import Testing

/// The tokens file's reload metrics: a failed reload shows until one succeeds, and is counted.
struct TokenReloadMetricsTests {
    @Test func aFailedReloadShowsUntilOneSucceeds() {
        let registry = MetricsRegistry()
        let metrics = TokenReloadMetrics(registry: registry)
        #expect(registry.render().contains("entitlementd_auth_tokens_last_reload_successful 1\n"))
        #expect(registry.render().contains("entitlementd_auth_tokens_reload_failures_total 0\n"))
        metrics.reloaded(succeeded: false)
        metrics.reloaded(succeeded: false)
        #expect(registry.render().contains("entitlementd_auth_tokens_last_reload_successful 0\n"))
        #expect(registry.render().contains("entitlementd_auth_tokens_reload_failures_total 2\n"))
        metrics.reloaded(succeeded: true)
        #expect(registry.render().contains("entitlementd_auth_tokens_last_reload_successful 1\n"))
        #expect(registry.render().contains("entitlementd_auth_tokens_reload_failures_total 2\n"))
    }
}
