import HTTPCore
import RPCCore
import ServiceRuntime

/// The web console: pages for the people who run the business, served on the admin listener.
///
/// Server-rendered HTML, no script; a session cookie after signing in with a token from the
/// tokens file; every form a POST carrying the session's CSRF token. Routes are fixed here
/// (sign-in, search, customer, actions) plus the pages registered with ``addPage(_:)``, which
/// appear in the navigation in registration order. Everything under `/console/` is answered
/// here, with the security headers on every response (``ConsoleResponses``).
public struct Console: HTTPService {
    public static let pathPrefix = "/console"
    static let home = "/console/"

    /// What the console trusts from the request and how long a session lives.
    public struct Configuration: Sendable {
        /// Trust `X-Forwarded-Proto` and `X-Forwarded-For` (a TLS proxy in front that sets
        /// them): the cookie is then `Secure` when the proxy says https, and sign-in failures are
        /// counted per forwarded client. Off, both headers are ignored: anyone could send them.
        public var trustForwardedHeaders: Bool
        public var sessionLifetimeMs: Int64

        public init(trustForwardedHeaders: Bool = false, sessionLifetimeMs: Int64 = 8 * 3_600_000) {
            self.trustForwardedHeaders = trustForwardedHeaders
            self.sessionLifetimeMs = sessionLifetimeMs
        }
    }

    let configuration: Configuration
    /// nil without a tokens file: then any token signs in, with every role, as the admin
    /// listener and the RPCs let everyone through without one.
    let authenticator: BearerTokenAuthenticator?
    let sessions: ConsoleSessions
    let throttle: SignInThrottle
    let desk: any CustomerDesk
    let logger: Logger?
    /// Whether search looks Apple order ids up (only when the desk was given a way to).
    let searchesOrderIDs: Bool
    private(set) var pages: [ConsolePage] = [ConsolePage.dashboardSlot]

    public init(configuration: Configuration, authenticator: BearerTokenAuthenticator?, desk: any CustomerDesk,
                sessions: ConsoleSessions, throttle: SignInThrottle, logger: Logger?,
                searchesOrderIDs: Bool = false) {
        self.configuration = configuration
        self.authenticator = authenticator
        self.desk = desk
        self.sessions = sessions
        self.throttle = throttle
        self.logger = logger
        self.searchesOrderIDs = searchesOrderIDs
    }

    /// Adds a page, or replaces the one at its path (the Dashboard slot, say).
    public mutating func addPage(_ page: ConsolePage) {
        precondition(page.path.hasPrefix(Console.home), "console pages live under /console/")
        if let index = pages.firstIndex(where: { $0.path == page.path }) {
            pages[index] = page
        } else {
            pages.append(page)
        }
    }

    /// Whether `path` is the console's (the admin listener sends it here instead of the bearer gate).
    public static func serves(path: some StringProtocol) -> Bool {
        path == pathPrefix || path.hasPrefix(home)
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if request.headerLimitExceeded {
            writer.respond(ConsoleResponses.secured(.text(431, "request header fields too large\n")))
            return
        }
        if request.bodyLimitExceeded {
            writer.respond(ConsoleResponses.secured(.text(413, "form too large: the console's forms are small\n")))
            return
        }
        let path = String(request.pathWithoutQuery)
        switch (request.method, path) {
        case ("GET", ConsoleStylesheet.path), ("HEAD", ConsoleStylesheet.path):
            writer.respond(ConsoleResponses.stylesheet())
        case ("GET", Console.pathPrefix):
            writer.respond(ConsoleResponses.redirect(Console.home))
        case ("GET", Console.home):
            if let (_, session) = currentSession(request) {
                writer.respond(page("Search", ConsoleViews.home(), session: session))
            } else {
                writer.respond(ConsoleResponses.html(200, ConsoleViews.document(
                    title: "Sign in", chrome: nil, body: ConsoleViews.signIn(message: nil))))
            }
        case ("GET", "/console/sign-in"):
            writer.respond(ConsoleResponses.redirect(Console.home))
        case ("POST", "/console/sign-in"):
            writer.respond(signIn(request))
        case ("POST", "/console/sign-out"):
            writer.respond(signOut(request))
        case ("POST", _):
            guard let (_, session) = currentSession(request) else {
                writer.respond(refusal(403, "Your session has ended: sign in again.", session: nil))
                return
            }
            respondAsync(writer) { await self.act(request, path: path, session: session) }
        case ("GET", _):
            guard let (_, session) = currentSession(request) else {
                writer.respond(ConsoleResponses.redirect(Console.home))
                return
            }
            respondAsync(writer) { await self.show(request, path: path, session: session) }
        default:
            var response = HTTPResponse.text(405, "method not allowed: the console takes GET and POST\n")
            response.headers.add(name: "allow", value: "GET, POST")
            writer.respond(ConsoleResponses.secured(response))
        }
    }

    /// Pages that read the store or call the service run as a task, off the loop thread.
    private func respondAsync(_ writer: any HTTPResponseWriter,
                              _ body: @escaping @Sendable () async -> HTTPResponse) {
        Task { writer.respond(await body()) }
    }

    /// A GET behind the session: search, a customer, or a registered page.
    func show(_ request: HTTPRequest, path: String, session: ConsoleSession) async -> HTTPResponse {
        let query = FormFields(queryOf: request.path)
        switch path {
        case "/console/search":
            return await search(query["q"] ?? "", session: session)
        case "/console/customer":
            return await customer(query, session: session)
        default:
            guard let registered = pages.first(where: { $0.answers(path) }) else {
                return refusal(404, "There is no console page at this address.", session: session)
            }
            guard session.principal.holdsAny(of: registered.roles) else {
                return refusal(403, Principal.refusal(session.principal, needs: registered.roles), session: session)
            }
            let pageRequest = ConsolePageRequest(principal: session.principal, query: query,
                                                 csrfToken: session.csrfToken, http: request)
            switch await registered.render(pageRequest) {
            case let .page(title, body, status):
                return page(title, body, session: session, status: status)
            case let .response(response):
                return ConsoleResponses.secured(response)
            }
        }
    }

    /// A page in the layout, with the signed-in person's navigation.
    func page(_ title: String, _ body: HTML, session: ConsoleSession, status: Int = 200) -> HTTPResponse {
        ConsoleResponses.html(status, ConsoleViews.document(title: title, chrome: chrome(session), body: body))
    }

    func chrome(_ session: ConsoleSession) -> ConsoleViews.Chrome {
        let links = [ConsoleViews.Link(title: "Search", path: Console.home)] + pages.compactMap { page in
            guard let title = page.navigationTitle, session.principal.holdsAny(of: page.roles) else { return nil }
            return ConsoleViews.Link(title: title, path: page.path)
        }
        return ConsoleViews.Chrome(principal: session.principal, csrfToken: session.csrfToken, navigation: links)
    }

    /// An error page: in the layout when signed in, bare otherwise.
    func refusal(_ status: Int, _ message: String, session: ConsoleSession?,
                 back: ConsoleViews.Link? = nil) -> HTTPResponse {
        let title = status == 404 ? "Not found" : status == 403 ? "Not allowed" : "Could not do that"
        let body = ConsoleViews.failure(title: title, message: message,
                                        back: back ?? ConsoleViews.Link(title: "Back to search", path: Console.home))
        return ConsoleResponses.html(status, ConsoleViews.document(
            title: title, chrome: session.map(chrome), body: body))
    }
}
