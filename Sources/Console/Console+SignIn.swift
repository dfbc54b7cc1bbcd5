import HTTPCore
import JWS
import RPCCore

/// Signing in and out, the session cookie, and the checks every POST passes.
extension Console {
    static let cookieName = "console_session"

    /// The session the request's cookie names, with its id; nil without a live one.
    ///
    /// The tokens file is asked again each time: a session whose token was removed (SIGHUP)
    /// ends now, and one whose roles changed acts with its new roles.
    func currentSession(_ request: HTTPRequest) -> (id: String, session: ConsoleSession)? {
        guard let id = Console.cookie(Console.cookieName, in: request.headers),
              var session = sessions.session(id: id) else { return nil }
        if let authenticator {
            guard let digest = session.tokenDigest, let principal = authenticator.principal(digest: digest),
                  ConsoleAccess.mayRead(principal) else {
                sessions.close(id: id)
                return nil
            }
            session.principal = principal
        }
        return (id, session)
    }

    /// A cookie's value from the request's `Cookie` headers (HTTP/2 may split them in several).
    static func cookie(_ name: String, in headers: HTTPHeaders) -> String? {
        for field in headers where field.name == "cookie" {
            for pair in field.value.split(separator: ";") {
                let trimmed = pair.trimmingWhitespace
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }

    /// The `Set-Cookie` value: unreadable from script (HttpOnly), never sent on a request
    /// another site starts (SameSite=Strict), only over TLS when the request came through it,
    /// and gone from the browser when the session ends on the server.
    func sessionCookie(_ id: String, maxAge: Int64, request: HTTPRequest) -> String {
        var cookie = "\(Console.cookieName)=\(id); Path=\(Console.pathPrefix); Max-Age=\(maxAge); HttpOnly; "
            + "SameSite=Strict"
        if cameThroughTLS(request) { cookie += "; Secure" }
        return cookie
    }

    /// Whether a trusted proxy says the browser spoke https to it.
    func cameThroughTLS(_ request: HTTPRequest) -> Bool {
        guard configuration.trustForwardedHeaders, let proto = request.headers["x-forwarded-proto"] else {
            return false
        }
        // A chain of proxies appends; the first is the one the browser reached.
        return proto.split(separator: ",").first?.trimmingWhitespace.lowercased() == "https"
    }

    /// Whom sign-in failures are counted against (``SignInThrottle``).
    func client(_ request: HTTPRequest) -> String {
        guard configuration.trustForwardedHeaders, let forwarded = request.headers["x-forwarded-for"],
              let first = forwarded.split(separator: ",").first else { return "direct" }
        return String(first.trimmingWhitespace)
    }

    /// A POST another origin made the browser send: refused whatever else it carries.
    ///
    /// `Sec-Fetch-Site` first: browsers set it on every request and no page can forge it, and
    /// it holds behind a proxy that rewrites `Host`. Without it (older browsers), `Origin` must
    /// name this host: `Host`, or `X-Forwarded-Host` from a trusted proxy. A request with
    /// neither header comes from no browser; it still needs the session and its CSRF token.
    func isCrossSite(_ request: HTTPRequest) -> Bool {
        if let site = request.headers["sec-fetch-site"] { return site != "same-origin" && site != "none" }
        guard let origin = request.headers["origin"] else { return false }
        guard let schemeEnd = origin.range(of: "://") else { return true }
        let originHost = origin[schemeEnd.upperBound...]
        var hosts = [request.headers["host"]]
        if configuration.trustForwardedHeaders {
            hosts.append(request.headers["x-forwarded-host"]?.split(separator: ",").first.map {
                String($0.trimmingWhitespace)
            })
        }
        return !hosts.contains { $0.map { $0 == originHost } ?? false }
    }

    func signIn(_ request: HTTPRequest) -> HTTPResponse {
        if isCrossSite(request) { return refusal(403, "Sign in from the console's own page.", session: nil) }
        let who = client(request)
        if let seconds = throttle.retryAfterSeconds(client: who) {
            logger?.warning("console sign-in throttled", [("client", who)])
            var response = signInPage(429, "Too many failed sign-ins: wait \(seconds) seconds and try again.")
            response.headers.add(name: "retry-after", value: String(seconds))
            return response
        }
        let token = FormFields(body: request.body)["token"] ?? ""
        let digest = SecretDigest(token)
        let principal: Principal?
        if let authenticator {
            principal = authenticator.principal(digest: digest)
        } else {
            principal = Principal.unchecked
        }
        guard let principal else {
            throttle.recordFailure(client: who)
            logger?.warning("console sign-in refused: unknown token", [("client", who)])
            return signInPage(401, "That token is not accepted: use one from the tokens file.")
        }
        guard ConsoleAccess.mayRead(principal) else {
            logger?.warning("console sign-in refused: no console role", [("actor", principal.actor)])
            return signInPage(403, Principal.refusal(principal, needs: ConsoleAccess.readers))
        }
        // A new id at every sign-in (no session fixation); the session it replaces ends.
        if let (previous, _) = currentSession(request) { sessions.close(id: previous) }
        let (id, _) = sessions.open(for: principal, tokenDigest: authenticator == nil ? nil : digest)
        logger?.info("console sign-in", [("actor", principal.actor), ("roles", principal.roleList)])
        return ConsoleResponses.redirect(
            Console.home, cookie: sessionCookie(id, maxAge: sessions.lifetimeSeconds, request: request))
    }

    func signInPage(_ status: Int, _ message: String) -> HTTPResponse {
        ConsoleResponses.html(status, ConsoleViews.document(
            title: "Sign in", chrome: nil, body: ConsoleViews.signIn(message: message)))
    }

    func signOut(_ request: HTTPRequest) -> HTTPResponse {
        if let (id, session) = currentSession(request) {
            guard let refused = csrfRefusal(request, session: session) else {
                sessions.close(id: id)
                logger?.info("console sign-out", [("actor", session.principal.actor)])
                return ConsoleResponses.redirect(Console.home, cookie: sessionCookie("", maxAge: 0, request: request))
            }
            return refused
        }
        return ConsoleResponses.redirect(Console.home, cookie: sessionCookie("", maxAge: 0, request: request))
    }

    /// nil when the POST may proceed: same origin, and carrying the session's CSRF token.
    func csrfRefusal(_ request: HTTPRequest, session: ConsoleSession) -> HTTPResponse? {
        if isCrossSite(request) {
            return refusal(403, "This form was sent from another site: refused.", session: session)
        }
        let presented = FormFields(body: request.body)["csrf"] ?? ""
        guard !presented.isEmpty, constantTimeEquals(presented, session.csrfToken) else {
            logger?.warning("console form refused: missing or wrong CSRF token", [("actor", session.principal.actor)])
            return refusal(403, "This form has expired or did not come from the console: reload the page and "
                           + "try again.", session: session)
        }
        return nil
    }
}
