import HTTPCore
import Synchronization

/// A value that belongs to one event loop's thread, carried through code that must be Sendable.
///
/// Only the owning loop's thread may touch `value`; everyone else just passes it back to that
/// loop through ``EventLoop/execute(_:)``.
struct LoopBound<Value>: @unchecked Sendable {
    let value: Value
}

/// The transport's ``HTTPResponseWriter`` for one request: the first answer wins, and it is
/// applied on the connection's loop thread, at once when already there.
final class StreamResponseWriter: HTTPResponseWriter {
    struct State: Sendable {
        var finished = false
        var onCancel: (@Sendable () -> Void)?
        /// A streamed response was started (``startStream(status:headers:)``).
        var streaming = false
        /// Streamed bytes written and not yet taken by nghttp2's data provider.
        var buffered = 0
        var bufferWaiter: (threshold: Int, handler: @Sendable () -> Void)?
    }

    let loop: EventLoop
    let connection: LoopBound<Connection>
    let streamID: Int32
    let state = Mutex(State())

    init(loop: EventLoop, connection: Connection, streamID: Int32) {
        self.loop = loop
        self.connection = LoopBound(value: connection)
        self.streamID = streamID
    }

    func respond(_ response: HTTPResponse) {
        let first = state.withLock { state in
            // A streamed response ends with its trailers (finish/abort), not a second response.
            if state.finished || state.streaming { return false }
            state.finished = true
            state.onCancel = nil
            return true
        }
        guard first else { return }
        if loop.inLoopThread {
            connection.value.deliver(streamID: streamID, response: response)
        } else {
            let connection = self.connection
            let streamID = self.streamID
            let response = LoopBound(value: response)
            loop.execute { connection.value.deliver(streamID: streamID, response: response.value) }
        }
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.finished { return true }
            state.onCancel = handler
            return false
        }
        if runNow { handler() }
    }

    /// The stream or connection went away before an answer: stop the work behind it.
    func cancel() {
        let (handler, waiter) = state.withLock { state -> ((@Sendable () -> Void)?, (@Sendable () -> Void)?) in
            let waiter = state.bufferWaiter?.handler
            state.bufferWaiter = nil
            if state.finished { return (nil, waiter) }
            state.finished = true
            defer { state.onCancel = nil }
            return (state.onCancel, waiter)
        }
        handler?()
        waiter?()
    }
}
