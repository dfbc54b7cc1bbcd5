import HTTPCore

/// Lets plain HTTP requests through to `protected` only with an accepted bearer token, the
/// same tokens and the same check as RPCs.
///
/// The admin listener's operations (metrics today; reconcile and webhook replay later) can
/// change or reveal state, so they get no weaker a check than RPCs. Without an authenticator
/// (no tokens file) everything passes, as RPCs do. A refusal is 401 with
/// `WWW-Authenticate: Bearer` (RFC 6750) and says what to send, never which token was wrong.
public struct BearerTokenGate: HTTPService {
    let authenticator: BearerTokenAuthenticator?
    let protected: any HTTPService

    public init(authenticator: BearerTokenAuthenticator?, protecting protected: any HTTPService) {
        self.authenticator = authenticator
        self.protected = protected
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if let authenticator, !authenticator.accepts(authorization: request.headers["authorization"]) {
            var response = HTTPResponse.text(
                401, "missing or invalid bearer token: send 'Authorization: Bearer <token>'\n")
            response.headers.add(name: "www-authenticate", value: "Bearer")
            writer.respond(response)
            return
        }
        protected.handle(request, writer: writer)
    }
}
