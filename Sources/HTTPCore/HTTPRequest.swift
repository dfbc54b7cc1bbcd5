/// A complete request as the transport hands it to a service: head and whole body.
///
/// The services this server runs are unary (gRPC unary calls, webhooks, health checks), so the
/// transport buffers the body up to its limit instead of streaming it.
public struct HTTPRequest: Sendable {
    public enum Version: Sendable, Equatable { case http1_1, http2 }

    public var version: Version
    public var method: String
    /// The request target as sent (`:path` in HTTP/2), query string included.
    public var path: String
    /// Regular header fields; HTTP/2 pseudo-headers are not included.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The body went past the transport's limit and was dropped, not truncated: the service
    /// answers with its own protocol's "too large" (413, or gRPC RESOURCE_EXHAUSTED).
    public var bodyLimitExceeded: Bool
    /// The header list went past the transport's limit; `headers` is incomplete (431).
    public var headerLimitExceeded: Bool

    public init(
        version: Version, method: String, path: String, headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], bodyLimitExceeded: Bool = false, headerLimitExceeded: Bool = false
    ) {
        self.version = version
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodyLimitExceeded = bodyLimitExceeded
        self.headerLimitExceeded = headerLimitExceeded
    }

    /// The path without its query string.
    public var pathWithoutQuery: Substring {
        if let q = path.firstIndex(of: "?") { return path[..<q] }
        return path[...]
    }
}
