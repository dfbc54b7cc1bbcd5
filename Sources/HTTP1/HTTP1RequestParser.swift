internal import CHTTPParser
import HTTPCore

/// An HTTP/1.1 request parser on Node's http_parser: bytes in, one whole request at a time out.
///
/// http_parser rejects ambiguous framing (Content-Length together with Transfer-Encoding,
/// duplicate Content-Length, bad chunk sizes, bare LF games) which is where hand-written
/// parsers get request smuggling wrong. This wrapper adds size limits and turns callbacks into
/// a ``HTTPRequest``. After each complete request the parser pauses, so a pipelining client's
/// next request waits until the previous answer has been written, keeping answers in order.
/// Owned by one thread.
public final class HTTP1RequestParser {
    public struct Limits: Sendable {
        /// Request line plus all header fields, in bytes.
        public var maxHeaderBytes: Int
        public var maxBodySize: Int
        public init(maxHeaderBytes: Int = 16 * 1024, maxBodySize: Int = 4 * 1024 * 1024) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodySize = maxBodySize
        }
    }

    public enum Outcome {
        /// All bytes consumed, no complete request yet.
        case needMore
        /// A request is complete; bytes after `consumed` belong to the next one.
        case request(HTTPRequest, keepAlive: Bool, consumed: Int)
        /// Unparseable or over a limit: answer `status` and close the connection.
        case failure(status: Int, reason: String)
    }

    var parser = http_parser()
    var settings = http_parser_settings()
    let limits: Limits
    var url: [UInt8] = []
    var headers = HTTPHeaders()
    var fieldName: [UInt8] = []
    var fieldValue: [UInt8] = []
    var inValue = false
    var headBytes = 0
    var body: [UInt8] = []
    var complete = false
    var limitFailure: (Int, String)?

    public init(limits: Limits = Limits()) {
        self.limits = limits
        http_parser_init(&parser, HTTP_REQUEST)
        HTTP1Callbacks.install(on: &settings)
    }

    /// Parses as much of `bytes` as forms the next request.
    public func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        http_parser_pause(&parser, 0)
        complete = false
        let consumed = withUnsafeMutablePointer(to: &parser) { parserPointer in
            parserPointer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            return http_parser_execute(parserPointer, &settings,
                                       bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                                       bytes.count)
        }
        if let (status, reason) = limitFailure { return .failure(status: status, reason: reason) }
        let errno = chttp_parser_errno(&parser)
        if complete {
            let request = takeRequest()
            let keepAlive = http_should_keep_alive(&parser) != 0 && parser.upgrade == 0
            return .request(request, keepAlive: keepAlive, consumed: consumed)
        }
        if errno != HPE_OK {
            return .failure(status: 400, reason: String(cString: http_errno_description(errno)))
        }
        return .needMore
    }

    /// True between the first byte of a request and its last: a read timeout then means a
    /// slow or stalled client, not an idle keep-alive connection.
    public var isMidRequest: Bool { headBytes > 0 || !url.isEmpty }

    private func takeRequest() -> HTTPRequest {
        let method = String(cString: http_method_str(http_method(rawValue: parser.method)))
        let request = HTTPRequest(
            version: .http1_1, method: method, path: String(decoding: url, as: UTF8.self),
            headers: headers, body: body)
        url = []
        headers = HTTPHeaders()
        body = []
        headBytes = 0
        return request
    }

    func flushHeaderField() {
        guard !fieldName.isEmpty else { return }
        let name = String(decoding: fieldName.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
        headers.add(name: name, value: String(decoding: fieldValue, as: UTF8.self))
        fieldName.removeAll(keepingCapacity: true)
        fieldValue.removeAll(keepingCapacity: true)
    }

    func countHead(_ n: Int) -> Bool {
        headBytes += n
        if headBytes > limits.maxHeaderBytes {
            limitFailure = (431, "request header fields too large")
            return false
        }
        return true
    }
}

@available(*, unavailable)
extension HTTP1RequestParser: Sendable {}
