import HTTP2
import HTTPCore

/// Streamed responses on an HTTP/2 connection, applied on the loop thread, and the keepalive
/// that lets their idle streams survive proxies.
extension Connection {
    func startStream(streamID: Int32, status: Int, headers: HTTPHeaders) {
        guard !closed, case .http2(let session) = mode, pending[streamID] != nil else { return }
        if !session.submitStreamHead(streamID: streamID, status: status, headers: headers) {
            takePending(streamID)?.cancel()
        }
        loop.timeouts.fileForNextTick(self)  // the keepalive runs from the next check on
        loop.markDirty(self)
    }

    func appendStream(streamID: Int32, bytes: [UInt8]) {
        guard !closed, case .http2(let session) = mode else { return }
        session.appendStream(streamID: streamID, bytes: bytes)
        loop.markDirty(self)
    }

    /// The stream's last act: the trailers after its queued bytes, or at once (`abort`).
    /// The request stops counting as in flight here, though nghttp2 may still be sending.
    func endStream(streamID: Int32, trailers: HTTPHeaders, abort: Bool) {
        guard !closed, case .http2(let session) = mode, takePending(streamID) != nil else { return }
        if abort {
            session.abortStream(streamID: streamID, trailers: trailers)
        } else {
            session.finishStream(streamID: streamID, trailers: trailers)
        }
        loop.markDirty(self)
    }

    /// Run by the loop's timeout check while streamed responses are open: a PING every
    /// ``ServerConfiguration/streamKeepalive`` keeps proxies that time out silent upstreams
    /// (nginx's grpc_read_timeout, 60 s by default) from cutting an idle stream, and the peer's
    /// ACK is the proof it is still there. A peer that has sent nothing, not even an ACK, for
    /// three intervals is gone: the connection closes and its streams' handlers are cancelled.
    func keepStreamsAlive(_ session: HTTP2ServerSession, now: ContinuousClock.Instant) {
        let interval = configuration.streamKeepalive
        if now - lastActivity > interval * 3 {
            close()
            return
        }
        guard now - lastPing >= interval, now - lastActivity >= interval else { return }
        lastPing = now
        session.sendPing()
        loop.markDirty(self)
    }
}
