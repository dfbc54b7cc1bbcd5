/// Sends each request to one of two services by its content type.
///
/// One port serves two protocols: the composition root puts gRPC (`application/grpc`,
/// `application/grpc+proto`, ...) on one side and the plain HTTP routes (health, metrics,
/// webhooks) on the other, so neither service has to know about the other. Generic, so the
/// per-request dispatch stays static.
public struct ContentTypeRouter<Matching: HTTPService, Otherwise: HTTPService>: HTTPService {
    let prefix: String
    let matching: Matching
    let otherwise: Otherwise

    /// Requests whose content type starts with `prefix` go to `matching`; the rest (no content
    /// type included) go to `otherwise`.
    public init(contentTypePrefix prefix: String, to matching: Matching, otherwise: Otherwise) {
        self.prefix = prefix
        self.matching = matching
        self.otherwise = otherwise
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if request.contentTypeStarts(with: prefix) {
            matching.handle(request, writer: writer)
        } else {
            otherwise.handle(request, writer: writer)
        }
    }
}

extension HTTPRequest {
    /// Whether the request's content type starts with `prefix` (`application/grpc` matches
    /// `application/grpc+proto`); false without one. The one definition both the router and
    /// the services behind it use, so they never disagree on what a request is.
    public func contentTypeStarts(with prefix: String) -> Bool {
        guard let contentType = headers["content-type"] else { return false }
        // The usual case, an exact match, is one String comparison (memcmp), not a byte loop.
        if contentType == prefix { return true }
        return contentType.utf8.starts(with: prefix.utf8)
    }
}
