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
        if let contentType = request.headers["content-type"], contentType.utf8.starts(with: prefix.utf8) {
            matching.handle(request, writer: writer)
        } else {
            otherwise.handle(request, writer: writer)
        }
    }
}
