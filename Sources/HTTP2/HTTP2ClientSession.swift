internal import CNGHTTP2
import HTTPCore

/// One client-side nghttp2 session (h2c prior knowledge): requests in, bytes out; bytes in,
/// ``HTTP2ClientEvent``s out; no I/O.
///
/// The mirror of ``HTTP2ServerSession`` for callers of other servers. Owned by the one thread
/// that drives its connection. nghttp2 callbacks only record events (they never re-enter
/// nghttp2); the owner calls ``receive(_:)``, drains ``takeEvents()``, then ``send(into:)``.
public final class HTTP2ClientSession {
    /// What the client advertises in its SETTINGS and enforces on responses.
    public struct Configuration: Sendable {
        /// Bytes of header fields per response block (name + value + 32 each, as RFC 9113
        /// counts them); a larger block resets the stream instead of growing memory.
        public var maxHeaderListSize: Int
        /// Per-stream receive window: a response of a few MiB arrives without stalling on
        /// WINDOW_UPDATE round trips.
        public var initialWindowSize: UInt32
        /// The receive window shared by all streams of the connection.
        public var connectionWindowSize: Int32

        public init(maxHeaderListSize: Int = 64 * 1024, initialWindowSize: UInt32 = 1 << 20,
                    connectionWindowSize: Int32 = 16 << 20) {
            self.maxHeaderListSize = maxHeaderListSize
            self.initialWindowSize = initialWindowSize
            self.connectionWindowSize = connectionWindowSize
        }
    }

    /// One open stream: the request body nghttp2 has yet to pull through the data provider,
    /// and the response state collected between header blocks. One object per stream (not a
    /// body table beside a response table), so each callback finds everything in one lookup.
    final class ClientStream {
        /// Emptied once nghttp2 has taken all of it.
        var body: [UInt8]
        var bodyOffset = 0
        var block = HTTPHeaders()
        var status: Int?
        var blockBytes = 0
        /// Set once the final (non-1xx) head arrived: the next header block is trailers.
        var finalResponseSeen = false
        init(body: [UInt8]) { self.body = body }
    }

    let session: OpaquePointer
    let configuration: Configuration
    private var streams: [Int32: ClientStream] = [:]
    /// The stream the last lookup found: nghttp2 calls back several times in a row for one
    /// stream (each header field, the frame, its DATA), so most lookups skip the hash.
    private var lastStream: (id: Int32, stream: ClientStream)?
    var events: [HTTP2ClientEvent] = []
    /// Set by the GOAWAY callback; the owner reconnects for its next request.
    internal(set) public var goAwayReceived = false

    public init(configuration: Configuration = Configuration()) throws(HTTP2Error) {
        self.configuration = configuration
        let callbacks = try newCallbackTable(installing: HTTP2ClientCallbacks.installReceiveCallbacks(on:))
        defer { nghttp2_session_callbacks_del(callbacks) }
        var raw: OpaquePointer?
        // user_data is filled in below: `self` cannot be referenced before all stored
        // properties exist, so the session starts with nil and gets `self` right after.
        guard nghttp2_session_client_new(&raw, callbacks, nil) == 0, let raw else {
            throw HTTP2Error(code: -1, description: "nghttp2: out of memory creating session")
        }
        session = raw
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(configuration.maxHeaderListSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: configuration.initialWindowSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0,
                                              configuration.connectionWindowSize)
    }

    deinit { nghttp2_session_del(session) }

    /// Queues a request; returns its stream ID. The first call also queues the connection
    /// preface and SETTINGS, so the first ``send(into:)`` carries everything.
    ///
    /// `headers` are regular fields (lowercase names); the pseudo-headers come from the
    /// other arguments. An empty `body` ends the stream with the HEADERS frame.
    public func submitRequest(method: String, scheme: String = "http", authority: String,
                              path: String, headers: HTTPHeaders,
                              body: [UInt8]) throws(HTTP2Error) -> Int32 {
        try ensureCanSubmit()
        var fields = HTTPHeaders()
        fields.reserveCapacity(headers.count + 4)
        fields.add(name: ":method", value: method)
        fields.add(name: ":scheme", value: scheme)
        fields.add(name: ":authority", value: authority)
        fields.add(name: ":path", value: path)
        for field in headers { fields.add(name: field.name, value: field.value) }
        let id = HeaderBlock.withNV(status: nil, fields) { submit($0, $1, hasBody: !body.isEmpty) }
        return try opened(id, body: body)
    }

    /// Queues a request whose head was laid out once (``HTTP2RequestHead``); otherwise as
    /// ``submitRequest(method:scheme:authority:path:headers:body:)``, which sends the same fields.
    public func submitRequest(_ head: HTTP2RequestHead, body: [UInt8]) throws(HTTP2Error) -> Int32 {
        try ensureCanSubmit()
        return try opened(submit(head.fields, head.count, hasBody: !body.isEmpty), body: body)
    }

    private func ensureCanSubmit() throws(HTTP2Error) {
        guard canSubmitRequests else {
            throw HTTP2Error(
                code: -1, description: "the connection accepts no new requests (GOAWAY or stream IDs spent)")
        }
    }

    /// Hands nghttp2 a request's fields; a body is pulled later through the data provider.
    private func submit(_ nva: UnsafePointer<nghttp2_nv>, _ count: Int, hasBody: Bool) -> Int32 {
        guard hasBody else { return nghttp2_submit_request(session, nil, nva, count, nil, nil) }
        var provider = nghttp2_data_provider()
        provider.read_callback = HTTP2ClientCallbacks.readBody
        return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
    }

    /// The stream nghttp2 opened (`id`), now tracked with its body; nghttp2's error otherwise.
    private func opened(_ id: Int32, body: [UInt8]) throws(HTTP2Error) -> Int32 {
        guard id > 0 else {
            throw HTTP2Error(code: id, description: String(cString: nghttp2_strerror(id)))
        }
        streams[id] = ClientStream(body: body)
        return id
    }

    /// The open stream `id`, or nil when it is not (or no longer) open.
    @inline(__always)
    func stream(_ id: Int32) -> ClientStream? {
        if let last = lastStream, last.id == id { return last.stream }
        guard let found = streams[id] else { return nil }
        lastStream = (id, found)
        return found
    }

    /// Forgets stream `id`; false when it was not open.
    func removeStream(_ id: Int32) -> Bool {
        if lastStream?.id == id { lastStream = nil }
        return streams.removeValue(forKey: id) != nil
    }

    /// Feeds bytes read from the socket. Throws when the server broke the protocol; the
    /// caller then flushes ``send(into:)`` (nghttp2 may have queued a GOAWAY) and closes.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) {
        try SessionIO.receive(session, bytes)
    }

    /// The events recorded since the last call, in order.
    public func takeEvents() -> [HTTP2ClientEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// Appends everything nghttp2 wants to send now to `buffer`.
    public func send(into buffer: inout [UInt8]) throws(HTTP2Error) {
        try SessionIO.send(session, into: &buffer)
    }

    /// False once GOAWAY was sent or received or stream IDs ran out: open a new connection.
    public var canSubmitRequests: Bool { nghttp2_session_check_request_allowed(session) != 0 }

    /// False once both sides are done (GOAWAY exchanged, or a fatal error): close the socket.
    public var isActive: Bool {
        nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    /// Streams submitted and not yet closed.
    public var openStreamCount: Int { streams.count }

    /// Abandons a stream (deadline passed, caller gave up); a ``HTTP2ClientEvent/streamClosed(streamID:errorCode:)``
    /// follows once the RST_STREAM is sent.
    public func cancel(streamID: Int32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    /// Says goodbye before closing the socket, so the server can tell a finished client from
    /// a broken connection.
    public func sendGoAway() {
        nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
    }
}

@available(*, unavailable)
extension HTTP2ClientSession: Sendable {}
