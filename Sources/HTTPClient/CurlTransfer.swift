internal import CCurl

/// One request in flight: the easy handle's settings, the answer as it arrives, and the
/// continuation of the task awaiting it.
///
/// Handed over, never shared: ``HTTPClient/send(_:timeout:)`` builds it and passes it to the
/// loop thread, which alone touches it from then on (callbacks run there too, inside
/// curl_multi_perform). Hence `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPClientRequest
    let timeout: Duration
    let maxResponseBytes: Int
    /// Called exactly once, by the loop thread, with the outcome; nil afterwards. A closure
    /// rather than a continuation so a blocking caller (a command-line tool) can wait on it too.
    var completion: ((Result<HTTPClientResponse, any Error>) -> Void)?
    /// Set when the awaiting task was cancelled before the loop thread started the transfer.
    var cancelledBeforeStart = false
    /// The easy handle while the transfer runs; the loop returns it to its pool afterwards.
    var handle: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    var body: [UInt8] = []
    var responseHeaders: [(name: String, value: String)] = []
    var bodyTooLarge = false

    init(request: HTTPClientRequest, timeout: Duration, maxResponseBytes: Int) {
        self.request = request
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Applies the request to a fresh (or reset) easy handle; a failure names the option.
    func configure(_ easy: UnsafeMutableRawPointer) throws(HTTPClientError) {
        handle = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(ccurl_easy_setopt_string(easy, CURLOPT_URL, request.url), "URL")
        // Signals are process-wide; a multi-threaded process must not let libcurl use them.
        try check(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        try check(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS")
        try check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1), "SSL_VERIFYPEER")
        try check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2), "SSL_VERIFYHOST")
        // A redirect is answered as the 3xx it is: a body carrying a shared secret or a signature
        // must never go to a host the caller did not name (libcurl's default, made explicit).
        try check(ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
        try check(ccurl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "TCP_KEEPALIVE")
        // The whole exchange, connect included: the caller's budget for this attempt.
        let milliseconds = max(1, Int(timeout.components.seconds) * 1000
                                  + Int(timeout.components.attoseconds / 1_000_000_000_000_000))
        try check(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, milliseconds), "TIMEOUT_MS")
        try check(ccurl_easy_setopt_string(easy, CURLOPT_USERAGENT, "entitlementd"), "USERAGENT")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        try check(ccurl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, receiveBody), "WRITEFUNCTION")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me), "WRITEDATA")
        try check(ccurl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, receiveHeader), "HEADERFUNCTION")
        try check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me), "HEADERDATA")
        try configureMethod(easy)
        // "Expect:" with no value stops libcurl's 100-continue wait before bodies over 1 KiB,
        // a round trip (or a second, against servers that never send 100) for nothing.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            guard let list = curl_slist_append(headerList, line) else {
                throw HTTPClientError(kind: .other(code: 27), detail: "out of memory for request headers")
            }
            headerList = list
        }
        try check(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "HTTPHEADER")
    }

    private func configureMethod(_ easy: UnsafeMutableRawPointer) throws(HTTPClientError) {
        switch request.method {
        case "GET" where request.body == nil:
            try check(ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1), "HTTPGET")
        default:
            if request.method != "POST" {
                try check(ccurl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method), "CUSTOMREQUEST")
            }
            // A POST without a body is still a POST (Content-Length: 0), not libcurl's GET.
            guard let body = request.body ?? (request.method == "POST" ? [] : nil) else { return }
            try check(ccurl_easy_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                      "POSTFIELDSIZE")
            // COPYPOSTFIELDS copies now, so the bytes need not outlive this call.
            let code = body.withUnsafeBytes { bytes in
                let start = bytes.baseAddress ?? UnsafeRawPointer(emptyBody)
                return ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
            }
            try check(code, "COPYPOSTFIELDS")
        }
    }

    /// Frees what ``configure(_:)`` allocated, so the easy handle can serve the next request.
    func releaseHandle() -> UnsafeMutableRawPointer? {
        defer { handle = nil }
        curl_slist_free_all(headerList)
        headerList = nil
        return handle
    }

    /// The outcome once libcurl reports the transfer done with `code`.
    func outcome(code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        guard let easy = handle else {
            return .failure(HTTPClientError(kind: .other(code: -1), detail: "transfer had no handle"))
        }
        guard code == CURLE_OK else {
            if bodyTooLarge {
                return .failure(HTTPClientError(
                    kind: .responseTooLarge, detail: "response body over \(maxResponseBytes) bytes"))
            }
            var osErrno = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
            let message = errorBuffer.pointee == 0
                ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
            return .failure(HTTPClientError(
                kind: HTTPClientError.kind(curlCode: Int(code.rawValue), osErrno: osErrno),
                detail: "curl error \(code.rawValue) (\(request.method) \(request.url)): \(message)"))
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPClientResponse(status: status, headers: responseHeaders, body: body))
    }

    private func check(_ code: CURLcode, _ option: String) throws(HTTPClientError) {
        guard code != CURLE_OK else { return }
        throw HTTPClientError(
            kind: HTTPClientError.kind(curlCode: Int(code.rawValue), osErrno: 0),
            detail: "curl option \(option) refused: \(String(cString: curl_easy_strerror(code)))")
    }
}

/// A valid pointer for an empty body (libcurl reads zero bytes from it).
nonisolated(unsafe) private let emptyBody = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

/// CURLOPT_WRITEFUNCTION: appends a chunk of the body; returning less than given aborts.
private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                         _ user: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    let length = size * count
    guard transfer.body.count + length <= transfer.maxResponseBytes else {
        transfer.bodyTooLarge = true
        return 0
    }
    if let data, length > 0 {
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    }
    return length
}

/// CURLOPT_HEADERFUNCTION: one header line at a time; a status line starts a new header block
/// (a 100 Continue or a redirect's headers are not the final answer's).
private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                           _ user: UnsafeMutableRawPointer?) -> Int {
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    let line = UnsafeRawBufferPointer(start: data, count: length)
    if line.starts(with: "HTTP/".utf8) {
        transfer.responseHeaders.removeAll(keepingCapacity: true)
    } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = trimmed(line[(colon + 1)...])
        transfer.responseHeaders.append((name: name, value: String(decoding: value, as: UTF8.self)))
    }
    return length
}

/// The bytes without leading and trailing spaces, tabs, CR and LF.
private func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
          let last = bytes.lastIndex(where: { !isSpace($0) }) else { return bytes[bytes.startIndex..<bytes.startIndex] }
    return bytes[first...last]
}
