import RPCCore

/// The page shell and the small pieces every page shares. Typed values in, ``HTML`` out.
enum ConsoleViews {
    /// A navigation link: its text and where it goes.
    struct Link: Sendable {
        var title: String
        var path: String
    }

    /// Who is signed in and the links they see; nil on the sign-in page.
    struct Chrome: Sendable {
        var principal: Principal
        var csrfToken: String
        var navigation: [Link]
    }

    static func document(title: String, chrome: Chrome?, body: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) · entitlementd console</title>
        <link rel="stylesheet" href="\(ConsoleStylesheet.path)">
        </head>
        <body>
        \(header(chrome))
        <main>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    static func header(_ chrome: Chrome?) -> HTML {
        guard let chrome else {
            return #"<header><span class="brand">entitlementd console</span></header>"#
        }
        let links = chrome.navigation.map { link -> HTML in "<a href=\"\(link.path)\">\(link.title)</a>" }
        let roles = chrome.principal.roleList
        return """
            <header>
            <a class="brand" href="/console/">entitlementd console</a>
            <nav aria-label="Console">\(links)</nav>
            <form method="post" action="/console/sign-out">
            \(csrfField(chrome.csrfToken))
            <span>\(chrome.principal.actor) (\(roles))</span>
            <button type="submit">Sign out</button>
            </form>
            </header>
            """
    }

    /// The hidden field every form carries; the action routes refuse a POST without it.
    static func csrfField(_ token: String) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(token)\">"
    }

    static func searchForm(term: String = "") -> HTML {
        """
        <form class="search" method="get" action="/console/search" role="search">
        <label for="search-term">Search</label>
        <input id="search-term" name="q" type="search" value="\(term)"
         placeholder="user id, transaction id or app account token">
        <button type="submit">Search</button>
        </form>
        """
    }

    static func signIn(message: String?) -> HTML {
        let notice: HTML = message.map { "<p class=\"error\" role=\"alert\">\($0)</p>" } ?? .empty
        return """
            <div class="sign-in">
            <h1>Sign in</h1>
            <p class="muted">Use a token from entitlementd's tokens file (--auth-tokens-file) with the viewer,
            support or admin role.</p>
            \(notice)
            <form class="stacked" method="post" action="/console/sign-in">
            <label for="token">Token</label>
            <input id="token" name="token" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button>
            </form>
            </div>
            """
    }

    static func home() -> HTML {
        """
        <h1>Find a customer</h1>
        \(searchForm())
        <p class="muted">A user id, an original or any transaction id, or an app account token.</p>
        """
    }

    static func searchResults(term: String, matches: [CustomerMatch], searchesOrderIDs: Bool) -> HTML {
        let rows = matches.map { match -> HTML in
            let path = ConsoleText.customerPath(match.userID)
            return "<tr><td><a href=\"\(path)\">\(match.userID)</a></td><td>\(match.matchedBy)</td></tr>"
        }
        let orders: HTML = searchesOrderIDs ? " Apple order ids are looked up at Apple." : .empty
        let found: HTML = matches.isEmpty
            ? """
              <p>No customer matches “\(term)”.\(orders)</p>
              <p><a href="\(ConsoleText.customerPath(term))">Open “\(term)” as a user id</a>
              (to grant a user with no purchases yet).</p>
              """
            : """
              <table><caption>Customers</caption>
              <thead><tr><th scope="col">User id</th><th scope="col">Matched by</th></tr></thead>
              <tbody>\(rows)</tbody></table>
              """
        return """
            <h1>Search</h1>
            \(searchForm(term: term))
            \(found)
            """
    }

    static func failure(title: String, message: String, back: Link?) -> HTML {
        let link: HTML = back.map { "<p><a href=\"\($0.path)\">\($0.title)</a></p>" } ?? .empty
        return """
            <h1>\(title)</h1>
            <p class="error" role="alert">\(message)</p>
            \(link)
            """
    }
}
