import Console
import EntitlementAPI
import EntitlementService
import HTTPCore
import RPCCore
import ServiceRuntime
import StorageCore

/// The console's wiring: its desk over the store and the RPC handlers, its sessions and its
/// sign-in throttle, and where its paths go on each listener.
extension Daemon {
    /// The console the admin listener serves. Pages added here (``Console/addPage(_:)``) join
    /// the navigation: the dashboard is registered the same way when it lands.
    /// `orders`: Apple's Look Up Order ID, when the Server API is configured; search asks it for
    /// a term that matched nothing here and could be an order id.
    func console(rpcs: EntitlementRPCs, store: any StoreBackend, webhooks: Bool, orders: AppleOperations?)
        -> Console {
        let orderLookup = orders.map { operations in
            { @Sendable (orderID: String) async throws -> [String] in
                var request = EntitlementV1.LookUpOrderRequest()
                request.orderID = orderID
                let answer = try await operations.lookUpOrder(request, deadline: .now + .seconds(10))
                return answer.transactions.map(\.ownerUserID).filter { !$0.isEmpty }
            }
        }
        let desk = ServiceCustomerDesk(rpcs: rpcs, repository: store, accountTokens: store, lookup: store,
                                       changeLog: store, outbox: webhooks ? store : nil, orderLookup: orderLookup)
        var console = Console(
            configuration: consoleConfiguration, authenticator: authenticator, desk: desk,
            sessions: ConsoleSessions(lifetimeMs: consoleConfiguration.sessionLifetimeMs,
                                      now: WallClock.unixMilliseconds),
            throttle: SignInThrottle(now: WallClock.unixMilliseconds), logger: logger,
            searchesOrderIDs: orders != nil)
        // More pages: `console.addPage(ConsolePage(...))` here (docs/console.md#adding-a-page).
        for page in Self.dashboardPages(rollup: store) { console.addPage(page) }
        return console
    }

    /// On the service port the console answers 404 saying where it is, like the admin operations.
    static func addConsoleElsewhere(to http: inout HTTPRouter) {
        let message = "the console is served on entitlementd's admin port only: start it with --admin-listen "
            + "HOST:PORT and open http://HOST:PORT/console/\n"
        for path in [Console.pathPrefix, Console.pathPrefix + "/"] {
            for method in ["GET", "POST"] {
                http.add(method, path) { _, writer in writer.respond(.text(404, message)) }
            }
        }
    }
}

/// The admin listener's one service: the console's paths to the console, which checks its own
/// session cookie (a browser sends no bearer token), everything else behind the bearer gate.
struct AdminListenerService: HTTPService {
    let console: Console
    let gated: BearerTokenGate

    func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if Console.serves(path: request.pathWithoutQuery) {
            console.handle(request, writer: writer)
        } else {
            gated.handle(request, writer: writer)
        }
    }
}
