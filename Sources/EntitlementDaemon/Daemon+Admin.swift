import HTTPCore
import RPCCore
import HTTPServer
import ServiceRuntime

/// The admin listener (--admin-listen): /metrics and admin operations, off the public port.
///
/// Metrics reveal traffic and customer activity, and admin operations (reconcile, webhook
/// replay) change state, so they belong on a port that is not exposed. Everything on it sits
/// behind the same bearer tokens as RPCs, /metrics included: the admin port should be private,
/// but a token costs a Prometheus scraper one line (`authorization: credentials_file`) and keeps
/// the numbers private when the port is exposed by mistake or shared with other local users.
extension Daemon {
    /// The admin port's routes; an admin operation is one more `add` here.
    func adminRoutes() -> HTTPRouter {
        var routes = HTTPRouter()
        routes.add("GET", "/metrics", metricsHandler())
        routes.add("POST", "/admin/reconcile", reconcileHandler())
        adminOperations(&routes)
        return routes
    }

    func metricsHandler() -> HTTPRouter.Handler {
        let metrics = self.metrics
        return { _, writer in
            writer.respond(.text(200, metrics.render(), contentType: "text/plain; version=0.0.4"))
        }
    }

    /// Starts the admin listener when --admin-listen asks for one.
    func startAdminServer() throws -> HTTPServer? {
        guard let adminConfiguration else { return nil }
        return try HTTPServer(configuration: adminConfiguration,
                              service: BearerTokenGate(authenticator: authenticator, protecting: adminRoutes()))
    }

    /// The startup lines on stdout, written in one call so a reader never sees only the first:
    /// scripts and tests wait for "entitlementd listening on", then read the admin address.
    func listenLines(server: HTTPServer, admin: HTTPServer?) -> String {
        var lines = "entitlementd listening on \(server.boundAddress)\n"
        if let admin { lines += "entitlementd admin listening on \(admin.boundAddress)\n" }
        return lines
    }

    /// Says at startup where /metrics is served and to whom.
    func logAdminListener(_ admin: HTTPServer?) {
        if let admin {
            logger.info(
                "admin listener: /metrics and admin operations are served here only; "
                    + "/metrics on the service port answers 404",
                [
                    ("address", admin.boundAddress),
                    ("auth", authenticator == nil ? "none (no --auth-tokens-file)" : "bearer token"),
                ])
        } else {
            logger.info(
                "/metrics is served on the service port to anyone who can reach it (no --admin-listen); "
                    + "set --admin-listen to move it to a private port")
        }
    }
}
