import HTTPCore
import RPCCore

/// A page of the console: its path, its link in the navigation, and how it renders.
///
/// Adding a page is one ``Console/addPage(_:)``: the console checks the session and the roles,
/// wraps the body in the layout (navigation, sign-out, stylesheet) and adds the security
/// headers; the page only turns a request into a body. A page whose path is already registered
/// replaces it, which is how the dashboard fills the slot ``dashboardSlot`` holds for it.
public struct ConsolePage: Sendable {
    public typealias Render = @Sendable (ConsolePageRequest) async -> ConsolePageResponse

    /// The exact path, e.g. `/console/dashboard`; a download beside it is a page of its own.
    public var path: String
    /// The navigation link's text; nil for pages reached from other pages (downloads).
    public var navigationTitle: String?
    /// Who may open it; readers by default.
    public var roles: Set<Principal.Role>
    /// Whether it also answers every path below ``path`` (which then ends in "/"): a family of
    /// downloads named by their last segment, such as one CSV per chart.
    public var answersPathsBelow: Bool
    public var render: Render

    public init(path: String, navigationTitle: String?, roles: Set<Principal.Role> = ConsoleAccess.readers,
                answersPathsBelow: Bool = false, render: @escaping Render) {
        self.path = path
        self.navigationTitle = navigationTitle
        self.roles = roles
        self.answersPathsBelow = answersPathsBelow
        self.render = render
    }

    /// Whether a request for `requested` is this page's.
    func answers(_ requested: String) -> Bool {
        requested == path || (answersPathsBelow && path.hasSuffix("/") && requested.hasPrefix(path)
                              && requested.count > path.count)
    }

    /// The Dashboard's place in the navigation until a dashboard is registered at its path.
    public static let dashboardSlot = ConsolePage(path: "/console/dashboard", navigationTitle: "Dashboard") { _ in
        .page(title: "Dashboard", body: """
            <h1>Dashboard</h1>
            <p>This build has no dashboard: the customer pages are under Search.</p>
            """)
    }
}

/// What a page is handed: the signed-in caller, the query, and the form token its forms post.
public struct ConsolePageRequest: Sendable {
    public var principal: Principal
    public var query: FormFields
    /// The session's CSRF token, for forms the page renders (``ConsoleViews/csrfField(_:)``).
    public var csrfToken: String
    public var http: HTTPRequest
}

/// What a page answers: a page in the layout, or a response of its own (a CSV download).
public enum ConsolePageResponse: Sendable {
    case page(title: String, body: HTML, status: Int = 200)
    /// Sent as it is, with the console's security headers added.
    case response(HTTPResponse)
}
