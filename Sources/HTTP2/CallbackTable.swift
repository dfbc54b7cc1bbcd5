internal import CNGHTTP2

/// A new nghttp2 callbacks table, filled in by `install`.
///
/// nghttp2 copies the table into each session it creates, so the caller deletes it with
/// `nghttp2_session_callbacks_del` as soon as its session exists.
func newCallbackTable(installing install: (OpaquePointer) -> Void) throws(HTTP2Error) -> OpaquePointer {
    var callbacks: OpaquePointer?
    guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
        throw HTTP2Error(code: -1, description: "nghttp2: out of memory creating callbacks")
    }
    install(callbacks)
    return callbacks
}

/// The receive callbacks every session here installs, by the names both callback tables use:
/// a stream's header block, its fields, each frame's end, its body and its close.
protocol ReceiveCallbacks {
    static var onBeginHeaders: nghttp2_on_begin_headers_callback { get }
    static var onHeader: nghttp2_on_header_callback { get }
    static var onFrameRecv: nghttp2_on_frame_recv_callback { get }
    static var onDataChunk: nghttp2_on_data_chunk_recv_callback { get }
    static var onStreamClose: nghttp2_on_stream_close_callback { get }
}

extension ReceiveCallbacks {
    static func installReceiveCallbacks(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameRecv)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
    }
}

/// Copies what fits of `bytes` after `offset` into nghttp2's frame buffer of `length` bytes and
/// moves `offset` past it; returns how many bytes it copied. Both sessions send bodies so.
@inline(__always)
func copyPendingBody(_ bytes: [UInt8], offset: inout Int, into buffer: UnsafeMutablePointer<UInt8>,
                     length: Int) -> Int {
    let n = min(length, bytes.count - offset)
    if n > 0 {
        bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + offset, count: n)
        }
        offset += n
    }
    return n
}
