import HTTPCore

/// Lets plain HTTP requests through to `protected` only with an accepted bearer token, the
/// same tokens and the same check as RPCs.
///
/// The admin listener's operations (metrics today; reconcile and webhook replay later) can
/// change or reveal state, so they get no weaker a check than RPCs. Without an authenticator
/// (no tokens file) everything passes, as RPCs do. A refusal is 401 with
/// `WWW-Authenticate: Bearer` (RFC 6750) and says what to send, never which token was wrong;
/// a known token without one of `roles` gets 403, naming the roles it needs.
public struct BearerTokenGate: HTTPService {
    let authenticator: BearerTokenAuthenticator?
    let roles: Set<Principal.Role>
    let protected: any HTTPService

    /// `roles` defaults to admin: the admin listener's operations were all a token could reach
    /// before roles, and only admin keeps them.
    public init(authenticator: BearerTokenAuthenticator?, roles: Set<Principal.Role> = [.admin],
                protecting protected: any HTTPService) {
        self.authenticator = authenticator
        self.roles = roles
        self.protected = protected
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if let authenticator {
            guard let principal = authenticator.principal(authorization: request.headers["authorization"]) else {
                var response = HTTPResponse.text(
                    401, "missing or invalid bearer token: send 'Authorization: Bearer <token>'\n")
                response.headers.add(name: "www-authenticate", value: "Bearer")
                writer.respond(response)
                return
            }
            guard principal.holdsAny(of: roles) else {
                writer.respond(.text(403, Principal.refusal(principal, needs: roles) + "\n"))
                return
            }
        }
        protected.handle(request, writer: writer)
    }
}
