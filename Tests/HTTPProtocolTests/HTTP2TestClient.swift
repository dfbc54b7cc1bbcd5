internal import CNGHTTP2
import HTTP2
import HTTPCore

/// A real nghttp2 client peer for testing ``HTTP2ServerSession`` without sockets.
///
/// A test double that speaks the protocol itself (not a mock of frames) catches what a
/// hand-written byte script would miss: HPACK state, flow control, SETTINGS acknowledgement.
/// It shares no code with the server wrapper, so a bug there cannot hide itself here.
/// Owned by the test's thread; the C callbacks only record what arrived.
final class HTTP2TestClient {
    /// RFC 9113 frame type codes, so tests can talk about frames without importing C.
    enum FrameType: UInt8 {
        case data = 0x0, headers = 0x1, priority = 0x2, rstStream = 0x3, settings = 0x4
        case pushPromise = 0x5, ping = 0x6, goAway = 0x7, windowUpdate = 0x8, continuation = 0x9
    }

    /// One frame the client received on a stream, in arrival order.
    struct Frame: Equatable {
        let type: FrameType?
        let endStream: Bool
    }

    /// Everything the client saw on one stream.
    final class Stream {
        var headers: [(name: String, value: String)] = []
        var trailers: [(name: String, value: String)]?
        var body: [UInt8] = []
        var frames: [Frame] = []
        /// Set when nghttp2 closed the stream; the RST_STREAM / GOAWAY code, 0 when clean.
        var closeErrorCode: UInt32?
        /// True while the current header block is a trailer block (second HEADERS).
        var readingTrailers = false

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        func trailer(_ name: String) -> String? { trailers?.first { $0.name == name }?.value }
    }

    /// A request body waiting for nghttp2 to pull it through the data provider.
    final class Upload {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let session: OpaquePointer
    var streams: [Int32: Stream] = [:]
    var uploads: [Int32: Upload] = [:]
    /// The last GOAWAY received: its last stream ID and error code.
    var goAway: (lastStreamID: Int32, errorCode: UInt32)?

    init() throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
            throw Failure(description: "nghttp2: no callbacks")
        }
        defer { nghttp2_session_callbacks_del(callbacks) }
        ClientCallbacks.install(on: callbacks)
        var raw: OpaquePointer?
        // user_data is set right after: `self` is not usable before `session` is assigned.
        guard nghttp2_session_client_new(&raw, callbacks, nil) == 0, let raw else {
            throw Failure(description: "nghttp2: no client session")
        }
        session = raw
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        // Default SETTINGS (64 KiB stream window) so large responses really need WINDOW_UPDATE.
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Queues a request; returns its stream ID. With `endStream: false` and no body only
    /// HEADERS go out, leaving the stream open as a slow or abandoned upload would.
    @discardableResult
    func submitRequest(_ fields: [(String, String)], body: [UInt8]? = nil,
                       endStream: Bool = true) throws -> Int32 {
        let id: Int32 = withNV(fields) { nva, count in
            if !endStream {
                return nghttp2_submit_headers(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), -1, nil,
                                              nva, count, nil)
            }
            guard body != nil else { return nghttp2_submit_request(session, nil, nva, count, nil, nil) }
            var provider = nghttp2_data_provider()
            provider.read_callback = ClientCallbacks.readBody
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else { throw Failure(description: "submit failed: \(id)") }
        if let body { uploads[id] = Upload(body) }
        streams[id] = Stream()
        return id
    }

    /// Cancels a stream the way a client abandons a call.
    func resetStream(_ id: Int32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
    }

    /// A SETTINGS value the server advertised (nghttp2's default until its SETTINGS arrive).
    func remoteSetting(_ id: nghttp2_settings_id) -> UInt32 {
        nghttp2_session_get_remote_settings(session, id)
    }

    var remoteMaxConcurrentStreams: UInt32 { remoteSetting(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS) }
    var remoteMaxHeaderListSize: UInt32 { remoteSetting(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE) }
    var remoteInitialWindowSize: UInt32 { remoteSetting(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE) }

    /// Everything the client wants to send now.
    func send() throws -> [UInt8] {
        var out: [UInt8] = []
        while true {
            var chunk: UnsafePointer<UInt8>?
            let n = nghttp2_session_mem_send(session, &chunk)
            guard n >= 0 else { throw Failure(description: "client mem_send: \(n)") }
            guard n > 0, let chunk else { return out }
            out.append(contentsOf: UnsafeBufferPointer(start: chunk, count: n))
        }
    }

    func receive(_ bytes: [UInt8]) throws {
        let n = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress!, $0.count) }
        guard n == bytes.count else { throw Failure(description: "client mem_recv: \(n)") }
    }

    /// Pumps bytes both ways until neither side has anything to say; returns the server's
    /// events in order. Bounded so a livelock fails the test instead of hanging it.
    @discardableResult
    func exchange(with server: HTTP2ServerSession) throws -> [HTTP2Event] {
        var events: [HTTP2Event] = []
        for _ in 0..<10_000 {
            let outbound = try send()
            if !outbound.isEmpty { try outbound.withUnsafeBytes { try server.receive($0) } }
            events += server.takeEvents()
            var inbound: [UInt8] = []
            try server.send(into: &inbound)
            events += server.takeEvents()
            if !inbound.isEmpty { try receive(inbound) }
            if outbound.isEmpty && inbound.isEmpty { return events }
        }
        throw Failure(description: "the exchange never went quiet")
    }

    /// The frame types in a byte stream that starts at a frame boundary (server output).
    static func frameTypes(in bytes: [UInt8]) -> [FrameType?] {
        var types: [FrameType?] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            types.append(FrameType(rawValue: bytes[offset + 3]))
            offset += 9 + length
        }
        return types
    }

    func stream(_ id: Int32) -> Stream {
        if let stream = streams[id] { return stream }
        let stream = Stream()
        streams[id] = stream
        return stream
    }
}

@available(*, unavailable)
extension HTTP2TestClient: Sendable {}

/// Lays out names and values in one buffer alive for the submit call (nghttp2 copies them).
private func withNV<R>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
    var storage: [UInt8] = []
    var spans: [(name: Range<Int>, value: Range<Int>)] = []
    for (name, value) in fields {
        let nameStart = storage.count
        storage.append(contentsOf: name.utf8)
        let valueStart = storage.count
        storage.append(contentsOf: value.utf8)
        spans.append((nameStart..<valueStart, valueStart..<storage.count))
    }
    storage.append(0)
    return storage.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        var nva = spans.map {
            nghttp2_nv(name: base + $0.name.lowerBound, value: base + $0.value.lowerBound,
                       namelen: $0.name.count, valuelen: $0.value.count,
                       flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return nva.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

/// The client's C trampolines: each recovers the ``HTTP2TestClient`` and records.
private enum ClientCallbacks {
    static func install(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameRecv)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
    }

    static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2TestClient {
        Unmanaged<HTTP2TestClient>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
        guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
        let stream = owner(userData).stream(frame.pointee.hd.stream_id)
        stream.readingTrailers = frame.pointee.headers.cat == NGHTTP2_HCAT_HEADERS
        if stream.readingTrailers { stream.trailers = [] }
        return 0
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value else { return 0 }
        let stream = owner(userData).stream(frame.pointee.hd.stream_id)
        let field = (name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                     value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
        if stream.readingTrailers {
            stream.trailers?.append(field)
        } else {
            stream.headers.append(field)
        }
        return 0
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        owner(userData).stream(streamID).body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    static let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        let client = owner(userData)
        let header = frame.pointee.hd
        if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
            client.goAway = (frame.pointee.goaway.last_stream_id, frame.pointee.goaway.error_code)
        }
        guard header.stream_id != 0 else { return 0 }
        client.stream(header.stream_id).frames.append(HTTP2TestClient.Frame(
            type: HTTP2TestClient.FrameType(rawValue: header.type),
            endStream: header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0))
        return 0
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
        owner(userData).stream(streamID).closeErrorCode = errorCode
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        guard let upload = owner(userData).uploads[streamID], let buffer, let flags else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let n = min(length, upload.bytes.count - upload.offset)
        if n > 0 {
            upload.bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + upload.offset, count: n) }
            upload.offset += n
        }
        if upload.offset == upload.bytes.count {
            flags.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            owner(userData).uploads[streamID] = nil
        }
        return n
    }
}
