import EntitlementService
import HTTPCore

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
}
