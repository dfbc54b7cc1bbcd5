import AppStoreServerAPI
import EntitlementPorts
import EntitlementService
import Console
import HTTPCore
import HTTPServer
import RPCCore
import ServiceRuntime
import Webhooks

/// What the admin operations act on, handed to their routes when the routes are built.
struct AdminOperations: Sendable {
    let outbox: any WebhookOutbox
    /// nil without --webhook-url: replay answers 409.
    let webhookDispatcher: WebhookDispatcher?
    let accountTokens: any AccountTokens
    /// nil without the App Store Server API: reconcile answers 412.
    let reconciler: NotificationReconciler?
    /// The web console, served under /console/ behind its own sign-in.
    let console: Console
    /// The TEST log and the client that asks Apple for one; nil without the Server API (412).
    let testNotifications: (TestNotifications, AppStoreServerClient)?
    /// Mass extensions go through it; nil without the Server API (412).
    let apiClient: AppStoreServerClient?
    /// `entitlementctl refunds USER`.
    let refunds: RefundLookup
}

/// The admin listener (--admin-listen): /metrics and admin operations, off the public port.
///
/// Metrics reveal traffic and customer activity, and admin operations (reconcile, webhook
/// replay) change state, so they belong on a port that is not exposed. Admin operations are
/// served there only: without --admin-listen they are off, so a service port handed to
/// backends or a proxy never carries an operator's controls, whoever holds an RPC token.
/// Everything on it sits behind the same bearer tokens as RPCs, /metrics included: the admin
/// port should be private, but a token costs a Prometheus scraper one line (`authorization:
/// credentials_file`) and keeps the numbers private when the port is exposed by mistake or
/// shared with other local users.
extension Daemon {
    /// The admin port's routes: /metrics and every admin operation.
    func adminRoutes(_ operations: AdminOperations) -> HTTPRouter {
        var routes = HTTPRouter()
        routes.add("GET", "/metrics", metricsHandler())
        addAdminOperations(operations, to: &routes)
        return routes
    }

    /// The admin operations (JSON in and out); an operation is one more `add` here.
    func addAdminOperations(_ operations: AdminOperations, to routes: inout HTTPRouter) {
        routes.add("POST", "/admin/reconcile", reconcileHandler(operations.reconciler))
        addWebhookOperations(outbox: operations.outbox, dispatcher: operations.webhookDispatcher, to: &routes)
        addOwnersOperation(operations.accountTokens, to: &routes)
        routes.add("POST", "/admin/apple/test-notification", testNotificationHandler(operations.testNotifications))
        routes.add("POST", "/admin/apple/extend-all", massExtensionStartHandler(operations.apiClient))
        routes.add("GET", "/admin/apple/extend-all", massExtensionStatusHandler(operations.apiClient))
        routes.add("GET", "/admin/refunds", refundsHandler(operations.refunds))
    }

    /// On the service port, the admin operations' paths answer 404 saying where they are served,
    /// so `entitlementctl` pointed at the wrong port tells its user how to turn them on.
    static func addAdminOperationsElsewhere(to http: inout HTTPRouter) {
        let message = #"{"error":"admin operations are served on entitlementd's admin port only: start it with "#
            + #"--admin-listen HOST:PORT and call that port (entitlementctl --admin HOST:PORT)"}"#
        let paths = [("POST", "/admin/reconcile"), ("GET", "/admin/webhooks"), ("POST", "/admin/webhooks/replay"),
                     ("GET", "/admin/owners"), ("POST", "/admin/apple/test-notification"),
                     ("POST", "/admin/apple/extend-all"), ("GET", "/admin/apple/extend-all"),
                     ("GET", "/admin/refunds")]
        for (method, path) in paths {
            http.add(method, path) { _, writer in
                writer.respond(.text(404, message + "\n", contentType: "application/json"))
            }
        }
    }

    func metricsHandler() -> HTTPRouter.Handler {
        let metrics = self.metrics
        return { _, writer in
            writer.respond(.text(200, metrics.render(), contentType: "text/plain; version=0.0.4"))
        }
    }

    /// The admin listener, bound but not started, when --admin-listen asks for one.
    func adminServer(_ operations: AdminOperations) throws -> HTTPServer? {
        guard let adminConfiguration else { return nil }
        let gated = BearerTokenGate(authenticator: authenticator, protecting: adminRoutes(operations))
        return try HTTPServer(
            configuration: adminConfiguration, service: AdminListenerService(console: operations.console, gated: gated))
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
                "admin listener: /metrics, admin operations and the console are served here only; "
                    + "/metrics on the service port answers 404",
                [
                    ("address", admin.boundAddress), ("console", "http://\(admin.boundAddress)/console/"),
                    ("auth", authenticator == nil ? "none (no --auth-tokens-file)" : "bearer token"),
                ])
        } else {
            logger.info(
                "/metrics is served on the service port to anyone who can reach it, and admin operations "
                    + "(reconcile, webhooks, owners) and the console are off (no --admin-listen); set --admin-listen "
                    + "to a private port for all of them")
        }
    }
}
