import Foundation

/// One HTTP exchange with Apple: how the client reaches the Server API.
///
/// A protocol so the composition root hands in the HTTP client the service already uses for
/// verifyReceipt (HTTPClient, over libcurl) and unit tests hand in a scripted one;
/// this module opens no sockets of its own.
public protocol ServerAPITransport: Sendable {
    /// Sends `request`; throws ``ServerAPITransportError`` when no HTTP answer came back.
    func send(_ request: ServerAPIHTTPRequest, timeout: Duration) async throws -> ServerAPIHTTPResponse
}

public struct ServerAPIHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
}

public struct ServerAPIHTTPResponse: Sendable {
    public var status: Int
    /// The `Retry-After` header as sent (Apple: milliseconds since the Unix epoch).
    public var retryAfter: String?
    public var body: [UInt8]

    public init(status: Int, retryAfter: String? = nil, body: [UInt8]) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }
}

/// No HTTP answer at all: refused, timed out, TLS, DNS. Retried like a 5xx.
public struct ServerAPITransportError: Error, Sendable, CustomStringConvertible {
    /// A few words a caller may read ("connection refused"), never a configured URL.
    public var reason: String
    /// The underlying error's full text, for the server log.
    public var detail: String

    public init(reason: String, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason): \(detail)" }
}
