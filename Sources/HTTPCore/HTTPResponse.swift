/// A complete response: status, headers, an optional body and optional trailers.
///
/// gRPC needs trailers after the body, or a "trailers-only" answer (headers carrying
/// grpc-status and ending the stream); both shapes are expressible here, HTTP/1.1 ignores
/// trailers (gRPC is never served over it).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var trailers: HTTPHeaders?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
                trailers: HTTPHeaders? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// A plain-text response, as used for health, errors and small endpoints.
    public static func text(_ status: Int, _ text: String,
                            contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": contentType], body: Array(text.utf8))
    }

    /// The standard reason phrase, for HTTP/1.1 status lines.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 303: return "See Other"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}
