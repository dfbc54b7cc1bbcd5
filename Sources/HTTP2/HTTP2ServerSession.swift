internal import CNGHTTP2
import HTTPCore

/// One server-side nghttp2 session: bytes in, ``HTTP2Event``s and bytes out; no I/O.
///
/// Owned by exactly one event-loop thread for its whole life. nghttp2 callbacks only record
/// events (they never re-enter nghttp2); the owner drains ``takeEvents()`` after ``receive(_:)``
/// and calls ``send(into:)`` until the session has nothing more to say.
public final class HTTP2ServerSession {
    /// Request state collected between HEADERS and END_STREAM.
    final class IncomingStream {
        var method = ""
        var path = ""
        var headers = HTTPHeaders()
        var headerBytes = 0
        var headerLimitExceeded = false
        var body: [UInt8] = []
        var bodyLimitExceeded = false
        /// The RFC 9113 §8 rules this request is held to as its fields and DATA arrive.
        var checks = RequestChecks()
        /// The request broke them and the stream is being reset: what still arrives is dropped.
        var isRejected = false
        init() { headers.reserveCapacity(8) }

        /// The request collected, its parts moved out (the stream is done with them): copying
        /// them retained four buffers that the stream's deinit released right after.
        func takeRequest() -> HTTPRequest {
            var request = HTTPRequest(version: .http2, method: "", path: "", headers: HTTPHeaders(), body: [],
                                      bodyLimitExceeded: bodyLimitExceeded, headerLimitExceeded: headerLimitExceeded)
            swap(&request.method, &method)
            swap(&request.path, &path)
            swap(&request.headers, &headers)
            swap(&request.body, &body)
            return request
        }

        /// Sizes the body buffer once from the request's `content-length`, so a large body
        /// arriving in many DATA frames is not copied again at every doubling of the array (a
        /// 300 KB receipt: an eighth of the server's CPU in memmove and fresh pages).
        ///
        /// Nothing when the declared length is over `limit` (such a body is dropped anyway) or
        /// the value is not a plain decimal number. The header is only the client's word: a
        /// body that differs from it is not delivered: ``RequestChecks`` resets the stream.
        func reserveBody(declaredLength value: UnsafePointer<UInt8>, _ count: Int, limit: Int) {
            guard body.isEmpty, count > 0, count <= 18 else { return }
            var length = 0
            for index in 0..<count {
                let digit = Int(value[index]) &- Int(UInt8(ascii: "0"))
                guard digit >= 0, digit <= 9 else { return }
                length = length * 10 + digit
            }
            if length <= limit { body.reserveCapacity(length) }
        }
    }

    /// Response bytes waiting for nghttp2 to pull them through the data provider.
    ///
    /// A whole response is complete from the start. A streamed one grows as the service writes:
    /// when the provider reaches the end of what is there it defers (NGHTTP2_ERR_DEFERRED) and
    /// the next write or the finish resumes it, so HTTP/2 flow control decides the pace.
    final class OutgoingBody {
        var bytes: [UInt8]
        var offset = 0
        var trailers: HTTPHeaders?
        /// No more bytes will come: at the end, send the trailers (or END_STREAM).
        var isComplete: Bool
        /// The provider returned NGHTTP2_ERR_DEFERRED and waits for `resume_data`.
        var isDeferred = false
        let isStreamed: Bool
        init(bytes: [UInt8], trailers: HTTPHeaders?, isComplete: Bool = true, isStreamed: Bool = false) {
            self.bytes = bytes
            self.trailers = trailers
            self.isComplete = isComplete
            self.isStreamed = isStreamed
        }
    }

    let session: OpaquePointer
    let limits: HTTP2Limits
    var incoming = StreamTable<IncomingStream>()
    /// The stream ``withIncomingStream(_:_:)`` found last: a request's header fields and its
    /// body arrive one after another, so most callbacks find their stream without hashing its
    /// id. Unretained (``incoming`` keeps it alive), so using it costs no retain and release;
    /// cleared whenever its stream leaves ``incoming``.
    private var lastIncoming: (id: Int32, stream: Unmanaged<IncomingStream>)?
    /// Long header strings this connection sent recently (its `:path`, its `user-agent`).
    var recentStrings = RecentHeaderStrings()
    var outgoing = StreamTable<OutgoingBody>()
    var events: [HTTP2Event] = []
    var clientStreamIDs = ClientStreamIDs()
    private var frameHeaders = FrameHeaderScanner()
    /// An RST_STREAM has been seen in the bytes and not yet fed to nghttp2 (its payload may end
    /// in the next read).
    private var resetPending = false
    /// Bytes the provider took from streamed bodies since ``takeDrained()``, per stream.
    var drained: [(streamID: Int32, bytes: Int)] = []
    /// Streamed responses not yet ended: what keepalive PINGs are for.
    public internal(set) var openStreamedResponses = 0
    /// Where the graceful close stands (``HTTP2ServerSession+Drain``).
    var drain = GracefulDrain()

    public init(limits: HTTP2Limits) throws {
        self.limits = limits
        let callbacks = try newCallbackTable(installing: HTTP2Callbacks.install(on:))
        defer { nghttp2_session_callbacks_del(callbacks) }
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else {
            throw HTTP2Error(code: -1, description: "nghttp2: out of memory creating options")
        }
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096)
        // Closed streams are not kept (they grew an idle connection by a stream per call up to
        // 256): ``ClientStreamIDs`` remembers them as ranges for the STREAM_CLOSED check.
        nghttp2_option_set_no_closed_streams(option, 1)
        // nghttp2's own request checks would reset a request without `:authority` or `host`,
        // which RFC 9113 §8.3.1 allows: ``RequestChecks`` makes the same checks without that one.
        nghttp2_option_set_no_http_messaging(option, 1)
        var raw: OpaquePointer?
        // user_data is filled in below: `self` cannot be referenced before all stored
        // properties exist, so the session starts with nil and gets `self` right after.
        // Small blocks come from a per-thread cache instead of glibc (``ChunkCache``: a read's
        // worth of streams overflows glibc's own small cache).
        var allocator = ChunkCache.nghttp2Allocator
        guard nghttp2_session_server_new3(&raw, callbacks, nil, option, &allocator) == 0, let raw else {
            throw HTTP2Error(code: -1, description: "nghttp2: out of memory creating session")
        }
        session = raw
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                   value: limits.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(limits.maxHeaderListSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: limits.initialWindowSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // The connection window is shared by all streams; widen it so many concurrent uploads
        // do not stall each other.
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
    }

    deinit { nghttp2_session_del(session) }

    /// Runs `body` with the request being received on stream `id`; nil when there is none.
    @inline(__always)
    func withIncomingStream<R>(_ id: Int32, _ body: (IncomingStream) -> R) -> R? {
        if let last = lastIncoming, last.id == id { return last.stream._withUnsafeGuaranteedRef(body) }
        guard let stream = incoming[id] else { return nil }
        lastIncoming = (id, Unmanaged.passUnretained(stream))
        return body(stream)
    }

    /// Starts collecting a request on stream `id`.
    func beginIncoming(_ id: Int32) {
        let stream = IncomingStream()
        incoming[id] = stream
        lastIncoming = (id, Unmanaged.passUnretained(stream))
    }

    /// Stops collecting stream `id`; returns what was collected.
    @discardableResult
    func removeIncoming(_ id: Int32) -> IncomingStream? {
        if lastIncoming?.id == id { lastIncoming = nil }
        return incoming.removeValue(forKey: id)
    }

    /// Feeds bytes read from the socket. Throws when the peer broke the protocol; the caller
    /// then flushes ``send(into:)`` (nghttp2 may have queued a GOAWAY) and closes.
    ///
    /// DATA or HEADERS on a stream that closed after the client ended its side is that protocol
    /// error (STREAM_CLOSED), checked here (``ClientStreamIDs``) because nghttp2 keeps no closed
    /// streams and would drop such DATA silently.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws {
        var position = 0
        var fed = 0
        func feed(upTo end: Int) throws {
            guard end > fed else { return }
            try SessionIO.receive(session, UnsafeRawBufferPointer(rebasing: bytes[fed..<end]))
            fed = end
        }
        while let header = frameHeaders.next(in: bytes, position: &position) {
            switch header.type {
            case UInt8(NGHTTP2_RST_STREAM.rawValue):
                // A reset closes its stream at once: nghttp2 must have it before a later frame
                // on that stream is looked at.
                resetPending = true
            case UInt8(NGHTTP2_DATA.rawValue), UInt8(NGHTTP2_HEADERS.rawValue):
                if resetPending {
                    try feed(upTo: header.end - 9)
                    resetPending = false
                }
                guard clientStreamIDs.isClosed(header.streamID) else { continue }
                try feed(upTo: header.end)
                nghttp2_session_terminate_session(session, NGHTTP2_STREAM_CLOSED.rawValue)
                throw HTTP2Error(code: Int32(NGHTTP2_ERR_STREAM_CLOSED.rawValue),
                                 description: "a frame on stream \(header.streamID), which had closed")
            default:
                continue
            }
        }
        try feed(upTo: bytes.count)
    }

    /// The events recorded since the last call, in order.
    public func takeEvents() -> [HTTP2Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The events recorded since the last call, in order, moved into `buffer` (whatever it held
    /// is dropped); the session keeps `buffer`'s old storage for the next events.
    ///
    /// A transport that hands the same buffer back on every read allocates nothing for events.
    /// ``takeEvents()`` gives its storage away and must allocate anew: a few KB when a read
    /// carries a deep batch of requests, big enough that glibc consolidated its caches of small
    /// chunks on every read.
    public func takeEvents(into buffer: inout [HTTP2Event]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&events, &buffer)
    }

    /// Appends everything nghttp2 wants to send to `buffer`.
    public func send(into buffer: inout [UInt8]) throws {
        try SessionIO.send(session, into: &buffer)
        if case .noticeQueued = drain.phase { try sendDrainPingAfterNotice(into: &buffer) }
    }

    /// False once both sides are done (GOAWAY exchanged, or a fatal error): close the socket.
    public var isActive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// Streams with a request in progress or a response not yet fully sent.
    public var openStreamCount: Int { incoming.count + outgoing.count }

    /// Queues a complete response. A stream the peer already closed is ignored.
    public func submit(streamID: Int32, response: HTTPResponse) {
        guard isOpenForResponse(streamID) else { return }
        let hasBody = !response.body.isEmpty || response.trailers != nil
        let rv: Int32 = HeaderBlock.withNV(status: response.status, response.headers) { nva, count in
            if hasBody {
                outgoing[streamID] = OutgoingBody(bytes: response.body, trailers: response.trailers)
                var provider = nghttp2_data_provider()
                provider.read_callback = HTTP2Callbacks.readBody
                return nghttp2_submit_response(session, streamID, nva, count, &provider)
            }
            return nghttp2_submit_response(session, streamID, nva, count, nil)
        }
        if rv != 0 {
            outgoing[streamID] = nil
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                      NGHTTP2_INTERNAL_ERROR.rawValue)
        }
    }

    /// Resets a stream (e.g. its handler was abandoned); nghttp2 reports it closed afterwards.
    public func reset(streamID: Int32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                  NGHTTP2_CANCEL.rawValue)
    }

    func submitTrailers(streamID: Int32, trailers: HTTPHeaders) -> Int32 {
        return HeaderBlock.withNV(status: nil, trailers) { nva, count in
            nghttp2_submit_trailer(session, streamID, nva, count)
        }
    }
}

@available(*, unavailable)
extension HTTP2ServerSession: Sendable {}
