/// Routes plain HTTP requests (health, metrics, webhooks) by exact path, then method.
///
/// Unknown path: 404; known path, other method: 405 with an Allow header, as RFC 9110 asks.
public struct HTTPRouter: HTTPService {
    public typealias Handler = @Sendable (HTTPRequest, any HTTPResponseWriter) -> Void

    private var routes: [String: [String: Handler]] = [:]

    public init() {}

    public mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
        routes[path, default: [:]][method] = handler
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        if request.headerLimitExceeded {
            writer.respond(.text(431, "request header fields too large\n"))
            return
        }
        guard let methods = routes[String(request.pathWithoutQuery)] else {
            writer.respond(.text(404, "not found\n"))
            return
        }
        if let handler = methods[request.method] {
            handler(request, writer)
        } else {
            var response = HTTPResponse.text(405, "method not allowed\n")
            response.headers.add(name: "allow", value: methods.keys.sorted().joined(separator: ", "))
            writer.respond(response)
        }
    }
}
