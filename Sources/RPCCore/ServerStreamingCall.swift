import HTTPCore
import Synchronization

/// The response side of one server-streaming call: starts the HTTP stream at the first message,
/// bounds what the client leaves unread, and ends the call exactly once.
///
/// A call ends when its handler returns or throws (``complete(_:)``, from ``GRPCHandler``), or
/// earlier when something outside the handler ends it (``end(with:)``: the buffer bound, a
/// server shutting down): that status is written at once and the handler's task cancelled.
/// A failure drops the responses the client has not taken and sends the status at once, so a
/// client that does not read still learns why; OK sends every response first.
public final class ServerStreamingCall: Sendable {
    struct State {
        var stream: (any HTTPResponseStream)?
        /// The status something outside the handler ended the call with.
        var endedWith: RPCError?
        var completed = false
        var cancelHandler: (@Sendable () -> Void)?
    }

    let writer: ObservedWriter
    let maxBufferedBytes: Int
    let stallTimeout: Duration
    let reportFailure: GRPCHandler.FailureReporter?
    let state = Mutex(State())

    init(writer: ObservedWriter, maxBufferedBytes: Int, stallTimeout: Duration,
         reportFailure: GRPCHandler.FailureReporter?) {
        self.writer = writer
        self.maxBufferedBytes = maxBufferedBytes
        self.stallTimeout = stallTimeout
        self.reportFailure = reportFailure
    }

    /// Queues one framed message without waiting; past the bound the call ends with
    /// RESOURCE_EXHAUSTED (thrown here too).
    func send(_ framed: [UInt8]) throws(RPCError) {
        let stream = try openStream()
        switch stream.write(framed, limit: maxBufferedBytes) {
        case .queued:
            return
        case .overLimit(let buffered):
            let error = RPCError(
                .resourceExhausted,
                "the client is not reading: \(buffered) bytes of responses wait unread, and this server keeps "
                    + "at most \(maxBufferedBytes) per call; read faster, or call again to resume")
            end(with: error)
            throw error
        case .closed:
            throw state.withLock { $0.endedWith } ?? RPCError(.cancelled, "the call has ended")
        }
    }

    /// Waits until the client has taken enough for `framed` to fit comfortably, then queues it.
    func sendWhenReady(_ framed: [UInt8]) async throws {
        let stream = try openStream()
        let threshold = max(0, min(maxBufferedBytes / 2, maxBufferedBytes - framed.count))
        let giveUpAt = ContinuousClock.now + stallTimeout
        while stream.bufferedBytes > threshold {
            try Task.checkCancellation()
            if ContinuousClock.now >= giveUpAt {
                let error = RPCError(
                    .resourceExhausted,
                    "the client read nothing for \(stallTimeout) while \(stream.bufferedBytes) bytes of responses "
                        + "waited; read faster, or call again to resume")
                end(with: error)
                throw error
            }
            await BufferWait.wait(stream, atMost: threshold, until: giveUpAt)
        }
        try send(framed)
    }

    /// Ends the call with `error` from outside its handler: the status goes out at once (a
    /// client that does not read still gets it, ahead of a GOAWAY at shutdown), then the
    /// handler's task is cancelled; whatever the cancelled handler throws is dropped.
    public func end(with error: RPCError) {
        let ended = state.withLock { state -> (stream: (any HTTPResponseStream)?, cancel: (@Sendable () -> Void)?)? in
            guard !state.completed else { return nil }
            state.completed = true
            state.endedWith = error
            defer { state.cancelHandler = nil }
            return (state.stream, state.cancelHandler)
        }
        guard let ended else { return }
        write(status: error, on: ended.stream)
        ended.cancel?()
    }

    /// Registers how to cancel the handler; runs it at once when the call already ended.
    func onEnd(_ cancel: @escaping @Sendable () -> Void) {
        let endedAlready = state.withLock { state in
            if !state.completed { state.cancelHandler = cancel }
            return state.completed
        }
        if endedAlready { cancel() }
    }

    /// The handler is done: writes the status it ended with, unless the call already ended.
    func complete(_ outcome: Result<Void, any Error>) {
        let stream = state.withLock { state -> (any HTTPResponseStream)?? in
            guard !state.completed else { return nil }
            state.completed = true
            state.cancelHandler = nil
            return .some(state.stream)
        }
        guard let stream else { return }
        var status: RPCError?
        if case .failure(let error) = outcome {
            status = GRPCResponses.status(for: error, method: writer.method, report: reportFailure)
        }
        write(status: status, on: stream)
    }

    /// Reports the call to the observer and writes its status (nil: OK): trailers after the
    /// stream, or a trailers-only answer when nothing was sent.
    private func write(status: RPCError?, on stream: (any HTTPResponseStream)?) {
        writer.observe(status?.code ?? .ok, cause: status?.cause)
        switch (stream, status) {
        case (let stream?, nil): stream.finish(trailers: GRPCResponses.okTrailers)
        case (let stream?, let status?): stream.abort(trailers: GRPCResponses.trailers(status))
        case (nil, nil):
            writer.inner.respond(HTTPResponse(status: 200, headers: GRPCResponses.grpcHeaders,
                                              trailers: GRPCResponses.okTrailers))
        case (nil, let status?): writer.inner.respond(GRPCResponses.failure(status))
        }
    }

    /// The HTTP stream, started (response headers sent) on the first message.
    func openStream() throws(RPCError) -> any HTTPResponseStream {
        let outcome = state.withLock { state -> Result<any HTTPResponseStream, RPCError> in
            if let ended = state.endedWith { return .failure(ended) }
            if state.completed { return .failure(RPCError(.cancelled, "the call has ended")) }
            if let stream = state.stream { return .success(stream) }
            guard let stream = writer.inner.startStream(status: 200, headers: GRPCResponses.grpcHeaders) else {
                return .failure(RPCError(.cancelled, "the call has ended or the transport cannot stream"))
            }
            state.stream = stream
            return .success(stream)
        }
        return try outcome.get()
    }
}

/// One wait for room in a stream's buffer: woken by the transport when enough was taken, by
/// the stall deadline, or by cancellation, whichever comes first.
enum BufferWait {
    static func wait(_ stream: any HTTPResponseStream, atMost threshold: Int,
                     until deadline: ContinuousClock.Instant) async {
        let wake = Wake()
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            wake.fire()
        }
        await withTaskCancellationHandler {
            await wake.wait { stream.whenBuffered(atMost: threshold) { wake.fire() } }
        } onCancel: {
            wake.fire()
        }
        timer.cancel()
    }

    /// A one-shot signal for one waiter; firing twice or before the wait is harmless.
    final class Wake: Sendable {
        private let state = Mutex<(fired: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        func fire() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.fired { return nil }
                state.fired = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        func wait(arming arm: () -> Void) async {
            await withCheckedContinuation { continuation in
                let firedAlready = state.withLock { state in
                    if !state.fired { state.waiter = continuation }
                    return state.fired
                }
                if firedAlready { continuation.resume() } else { arm() }
            }
        }
    }
}
