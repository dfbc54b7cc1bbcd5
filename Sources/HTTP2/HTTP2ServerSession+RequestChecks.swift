internal import CNGHTTP2
import HTTPCore

/// Resetting a request that breaks ``RequestChecks``, the way nghttp2's own checks did.
extension HTTP2ServerSession {
    /// Queues RST_STREAM PROTOCOL_ERROR for stream `id` and drops what it collected.
    ///
    /// Called from callbacks, which may submit frames: nghttp2 queues the reset and treats the
    /// stream as closing at once, so it delivers no further frame of it (the same call its HTTP
    /// messaging makes). The stream stays in ``incoming`` until nghttp2 reports it closed, so
    /// the close is not taken for the client's own end (``ClientStreamIDs``).
    func rejectMalformed(_ id: Int32, _ stream: IncomingStream) {
        stream.isRejected = true
        stream.body = []
        stream.headers = HTTPHeaders()
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_PROTOCOL_ERROR.rawValue)
    }
}
