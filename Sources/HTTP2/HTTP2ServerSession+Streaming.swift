internal import CNGHTTP2
import HTTPCore

/// Streamed responses: headers now, body bytes as the service writes them, trailers at the end.
///
/// The body goes through the same deferred data provider as a whole response, so nghttp2 sends
/// only what the peer's flow-control windows allow; what it has not taken stays in the
/// stream's ``HTTP2ServerSession/OutgoingBody`` and the transport bounds it (``takeDrained()``
/// reports what was taken). All on the owning loop thread, outside nghttp2's callbacks.
extension HTTP2ServerSession {
    /// Sends the response head and opens a body that grows with ``appendStream(streamID:bytes:)``.
    /// False when the stream is gone (the peer reset it) or nghttp2 refused the head.
    public func submitStreamHead(streamID: Int32, status: Int, headers: HTTPHeaders) -> Bool {
        guard isOpenForResponse(streamID) else { return false }
        let body = OutgoingBody(bytes: [], trailers: nil, isComplete: false, isStreamed: true)
        outgoing[streamID] = body
        openStreamedResponses += 1
        let rv: Int32 = HeaderBlock.withNV(status: status, headers) { nva, count in
            var provider = nghttp2_data_provider()
            provider.read_callback = HTTP2Callbacks.readBody
            return nghttp2_submit_response(session, streamID, nva, count, &provider)
        }
        if rv != 0 {
            dropStreamed(streamID)
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                      NGHTTP2_INTERNAL_ERROR.rawValue)
            return false
        }
        return true
    }

    /// Queues body bytes after those written before; ignored once the stream is gone.
    public func appendStream(streamID: Int32, bytes: [UInt8]) {
        guard let body = outgoing[streamID], body.isStreamed, !body.isComplete else { return }
        if body.offset >= 64 * 1024 {
            // Keep only what is unsent, so a steady reader never grows the buffer.
            body.bytes.removeFirst(body.offset)
            body.offset = 0
        }
        body.bytes.append(contentsOf: bytes)
        resume(streamID, body)
    }

    /// Sends what is queued, then `trailers` ending the stream.
    public func finishStream(streamID: Int32, trailers: HTTPHeaders) {
        guard let body = outgoing[streamID], body.isStreamed, !body.isComplete else { return }
        body.isComplete = true
        body.trailers = trailers
        resume(streamID, body)
    }

    /// Ends the stream now with `trailers`, dropping the queued bytes the peer has not taken.
    ///
    /// A HEADERS frame is not flow-controlled, so this works while the peer's window is shut:
    /// nghttp2 sends the trailers with END_STREAM, closes the stream and frees the pending DATA.
    public func abortStream(streamID: Int32, trailers: HTTPHeaders) {
        guard let body = outgoing[streamID], body.isStreamed, !body.isComplete else { return }
        dropStreamed(streamID)
        if submitTrailers(streamID: streamID, trailers: trailers) != 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID,
                                      NGHTTP2_INTERNAL_ERROR.rawValue)
        }
    }

    /// Bytes of streamed bodies nghttp2 took since the last call, per stream, in order.
    public func takeDrained() -> [(streamID: Int32, bytes: Int)] {
        guard !drained.isEmpty else { return [] }
        defer { drained.removeAll(keepingCapacity: true) }
        return drained
    }

    /// Queues a PING: proxies and the peer see traffic on a connection whose streams are idle,
    /// and a peer that no longer answers is noticed (its ACK never comes).
    public func sendPing() {
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Whether a response may still be submitted on the stream. `find_stream` also returns
    /// closed streams nghttp2 keeps for priority bookkeeping; a response queued on one is never
    /// sent, so its body would stay in `outgoing` for good.
    func isOpenForResponse(_ streamID: Int32) -> Bool {
        guard let stream = nghttp2_session_find_stream(session, streamID) else { return false }
        let state = nghttp2_stream_get_state(stream)
        return state == NGHTTP2_STREAM_STATE_OPEN || state == NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE
    }

    private func resume(_ streamID: Int32, _ body: OutgoingBody) {
        guard body.isDeferred else { return }
        body.isDeferred = false
        nghttp2_session_resume_data(session, streamID)
    }

    private func dropStreamed(_ streamID: Int32) {
        if outgoing.removeValue(forKey: streamID) != nil { openStreamedResponses -= 1 }
    }
}
