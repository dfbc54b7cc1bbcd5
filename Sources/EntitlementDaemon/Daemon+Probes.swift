import EntitlementService
import HTTPCore
import ServiceRuntime

/// The probes on the service port: liveness (`/healthz`) and readiness (`/readyz`), kept
/// apart because they ask different questions and get different answers during an outage.
extension Daemon {
    /// `GET /healthz`: liveness, 200 `ok` whenever the process can answer at all, during a
    /// drain and a database outage too.
    ///
    /// A failing liveness probe means "restart me": a database outage is not cured by
    /// restarting the replica (it would only lose its cache and its drain), so that is
    /// `/readyz`'s business. The body never carries a reason: nginx forwards `/healthz` to the
    /// internet, and a store's reason can name its database host.
    static func healthzHandler() -> HTTPRouter.Handler {
        { _, writer in writer.respond(.text(200, "ok")) }
    }

    /// `GET /readyz`: 200 `ok` while this replica should get calls, else 503 with one short
    /// code (``HealthService/NotReady``) on one line; the gRPC health service answers the same.
    static func readyzHandler(_ health: HealthService) -> HTTPRouter.Handler {
        { _, writer in
            if let notReady = health.notReady {
                writer.respond(.text(503, notReady.rawValue + "\n"))
            } else {
                writer.respond(.text(200, "ok"))
            }
        }
    }

    /// `entitlementd_ready`: 1 while `/readyz` answers 200, 0 while it answers 503; read from
    /// the same verdict at each scrape, so an alert sees what a balancer sees.
    static func registerReadinessGauge(in registry: MetricsRegistry, _ health: HealthService) {
        registry.registerGauge(
            "entitlementd_ready", help: "1 while /readyz answers 200 and the gRPC health check SERVING, else 0"
        ) {
            health.notReady == nil ? 1 : 0
        }
    }
}
