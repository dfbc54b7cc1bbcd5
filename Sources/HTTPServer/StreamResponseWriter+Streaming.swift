import HTTPCore

/// The streamed side of ``StreamResponseWriter``: the writer itself is the body stream.
///
/// The byte count lives under the writer's lock so any thread can check the bound before
/// queuing; the bytes themselves move to the loop thread and into the nghttp2 session, whose
/// data provider reports what it took (``drained(_:)``, via ``Connection/flush()``).
extension StreamResponseWriter: HTTPResponseStream {
    func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPResponseStream)? {
        // Stream 0 is an HTTP/1.1 exchange: answered in one piece only.
        guard streamID != 0 else { return nil }
        let first = state.withLock { state in
            if state.finished || state.streaming { return false }
            state.streaming = true
            return true
        }
        guard first else { return nil }
        let head = LoopBound(value: headers)
        onLoop { connection, streamID in
            connection.startStream(streamID: streamID, status: status, headers: head.value)
        }
        return self
    }

    func write(_ bytes: [UInt8], limit: Int) -> HTTPStreamWrite {
        let outcome = state.withLock { state -> HTTPStreamWrite in
            if state.finished { return .closed }
            if state.buffered + bytes.count > limit { return .overLimit(buffered: state.buffered) }
            state.buffered += bytes.count
            return .queued(buffered: state.buffered)
        }
        guard case .queued = outcome else { return outcome }
        onLoop { connection, streamID in connection.appendStream(streamID: streamID, bytes: bytes) }
        return outcome
    }

    var bufferedBytes: Int { state.withLock { $0.buffered } }

    func whenBuffered(atMost threshold: Int, _ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.finished || state.buffered <= threshold { return true }
            state.bufferWaiter = (threshold, handler)
            return false
        }
        if runNow { handler() }
    }

    func finish(trailers: HTTPHeaders) { end(trailers: trailers, abort: false) }

    func abort(trailers: HTTPHeaders) { end(trailers: trailers, abort: true) }

    /// nghttp2 took `count` streamed bytes: wakes a writer waiting for room. Loop thread.
    func drained(_ count: Int) {
        let waiter = state.withLock { state -> (@Sendable () -> Void)? in
            state.buffered -= count
            guard let waiter = state.bufferWaiter, state.buffered <= waiter.threshold else { return nil }
            state.bufferWaiter = nil
            return waiter.handler
        }
        waiter?()
    }

    private func end(trailers: HTTPHeaders, abort: Bool) {
        let (first, waiter) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            let waiter = state.bufferWaiter?.handler
            state.bufferWaiter = nil
            if state.finished || !state.streaming { return (false, waiter) }
            state.finished = true
            state.onCancel = nil
            return (true, waiter)
        }
        waiter?()
        guard first else { return }
        let trailers = LoopBound(value: trailers)
        onLoop { connection, streamID in
            connection.endStream(streamID: streamID, trailers: trailers.value, abort: abort)
        }
    }

    /// Runs `work` on the connection's loop thread; always queued, so it never runs inside an
    /// nghttp2 callback even when called from one.
    private func onLoop(_ work: @escaping @Sendable (Connection, Int32) -> Void) {
        let connection = self.connection
        let streamID = self.streamID
        loop.execute { work(connection.value, streamID) }
    }
}
