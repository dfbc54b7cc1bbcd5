internal import CNGHTTP2

/// A bare nghttp2 server session with the library's HTTP messaging checks on, as
/// ``HTTP2ServerSession`` ran before it made them itself (``RequestChecks``): the oracle the
/// differential tests and the `http2-request-checks` fuzz target compare the session with.
///
/// Public for those two; the service never uses it. Records what it would have handed an
/// application: the requests that ended (their regular fields and body) and every byte it wants
/// to send. Owned by one thread.
public final class HTTP2ReferenceServer {
    /// What one stream delivered so far.
    public final class Request {
        /// Regular fields as `name: value`, in order (pseudo-headers left out).
        public internal(set) var fields: [String] = []
        public internal(set) var body: [UInt8] = []
    }

    let session: OpaquePointer
    public internal(set) var streams: [Int32: Request] = [:]
    /// Streams whose request ended (END_STREAM reached the application), in order.
    public internal(set) var completed: [Int32] = []

    struct Failure: Error {}

    public init() throws {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw Failure() }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, ReferenceCallbacks.onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, ReferenceCallbacks.onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, ReferenceCallbacks.onFrameRecv)
        var raw: OpaquePointer?
        guard nghttp2_session_server_new(&raw, callbacks, nil) == 0, let raw else { throw Failure() }
        session = raw
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Feeds `bytes`; returns what the server then sends, or nil when it failed the connection.
    public func feed(_ bytes: [UInt8]) -> [UInt8]? {
        let read = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        var output: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        return read < 0 ? nil : output
    }

    func stream(_ id: Int32) -> Request {
        if let request = streams[id] { return request }
        let request = Request()
        streams[id] = request
        return request
    }
}

@available(*, unavailable)
extension HTTP2ReferenceServer: Sendable {}

extension HTTP2ReferenceServer {
    /// `bytes` cut at `cuts`: the reads a server gets them in, so the session and this server
    /// see a frame arrive in pieces the same way.
    public static func reads(_ bytes: [UInt8], cutAt cuts: [Int]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() where cut > start && cut < bytes.count {
            result.append(Array(bytes[start..<cut]))
            start = cut
        }
        result.append(Array(bytes[start...]))
        return result
    }
}

private enum ReferenceCallbacks {
    static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2ReferenceServer {
        Unmanaged<HTTP2ReferenceServer>.fromOpaque(userData!).takeUnretainedValue()
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
        guard let frame, let name, let value, nameLength > 0, name[0] != UInt8(ascii: ":") else { return 0 }
        let field = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self) + ": "
            + String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
        owner(userData).stream(frame.pointee.hd.stream_id).fields.append(field)
        return 0
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
        guard let data else { return 0 }
        owner(userData).stream(streamID).body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return 0
    }

    static let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
        guard let frame else { return 0 }
        let header = frame.pointee.hd
        let isRequestFrame = header.type == UInt8(NGHTTP2_HEADERS.rawValue)
            || header.type == UInt8(NGHTTP2_DATA.rawValue)
        let endsRequest = isRequestFrame && header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        if endsRequest {
            let server = owner(userData)
            _ = server.stream(header.stream_id)
            server.completed.append(header.stream_id)
        }
        return 0
    }
}
