import ServiceRuntime

/// The tokens file's SIGHUP reloads: whether the last one took, and how many failed.
///
/// A failed reload keeps the previous tokens, so the process serves on while the file on disk
/// says something else (a revoked token still accepted, a new caller refused): the gauge stays
/// 0 until a reload takes, the way Prometheus's own `prometheus_config_last_reload_successful`
/// does. Only reloads are counted: the Apple root certificates, the Server API key and the
/// tokens file are read at startup too, but a failure there exits 2 before /metrics serves.
final class TokenReloadMetrics: Sendable {
    private let lastSucceeded = Locked(true)
    private let failures: Counter

    init(registry: MetricsRegistry) {
        failures = registry.counter(
            "entitlementd_auth_tokens_reload_failures_total",
            help: "SIGHUP reloads of --auth-tokens-file that failed (the previous tokens stayed in force)")
        registry.registerGauge(
            "entitlementd_auth_tokens_last_reload_successful",
            help: "0 from a failed reload of --auth-tokens-file until one succeeds, else 1"
        ) { [lastSucceeded] in lastSucceeded.withLock { $0 } ? 1 : 0 }
    }

    func reloaded(succeeded: Bool) {
        lastSucceeded.withLock { $0 = succeeded }
        if !succeeded { failures.increment() }
    }
}
