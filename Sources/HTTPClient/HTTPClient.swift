import ServiceRuntime

/// The service's one way to make an outbound HTTP request: HTTP/1.1 and HTTP/2 over libcurl,
/// kept-alive connections, TLS verified against the system's CA store, redirects never followed,
/// a time budget per request, and cancellation of the awaiting task ending the transfer.
///
/// Calls to Apple, webhook deliveries and the command-line tools all go through it, so timeouts,
/// TLS and failure words are decided in one place. It replaced FoundationNetworking's URLSession,
/// which wraps the same libcurl but hops through several dispatch queues per request (half of
/// SubmitReceipt's CPU at zero Apple latency; docs/architecture.md). Build one per pool of
/// connections you want (each has its own thread) and share it.
public final class HTTPClient: Sendable {
    /// A response body larger than this fails with ``HTTPClientError/Kind/responseTooLarge``
    /// instead of growing the process without bound (Apple's answers are kilobytes).
    public static let maxResponseBytes = 64 << 20

    private let loop: CurlMultiLoop

    /// `maxConnectionsPerHost`: connections to one host at once; more requests wait their turn.
    public init(maxConnectionsPerHost: Int) {
        loop = CurlMultiLoop(maxConnectionsPerHost: maxConnectionsPerHost)
        loop.start()
    }

    deinit {
        loop.stop()
    }

    /// Sends `request` and returns the whole answer, whatever its status.
    ///
    /// `timeout` bounds the whole exchange (connecting included). Throws ``HTTPClientError``
    /// when no HTTP answer came back, or CancellationError when the calling task is cancelled
    /// (the transfer is stopped and its connection dropped).
    public func send(_ request: HTTPClientRequest, timeout: Duration) async throws -> HTTPClientResponse {
        try Task.checkCancellation()
        let transfer = CurlTransfer(request: request, timeout: timeout, maxResponseBytes: Self.maxResponseBytes)
        let loop = self.loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.completion = { continuation.resume(with: $0) }
                loop.submit(.start(transfer))
            }
        } onCancel: {
            loop.submit(.cancel(transfer))
        }
    }

    /// Sends `request` and blocks the calling thread until the whole answer is in: for the
    /// synchronous command-line tools, which have no task to suspend.
    ///
    /// The same transfer as ``send(_:timeout:)`` on the same loop thread, only waited for with a
    /// latch. Never call it from async code: it would hold a thread of the cooperative pool for
    /// the whole exchange. Throws ``HTTPClientError`` when no HTTP answer came back.
    public func sendBlocking(_ request: HTTPClientRequest, timeout: Duration) throws -> HTTPClientResponse {
        let transfer = CurlTransfer(request: request, timeout: timeout, maxResponseBytes: Self.maxResponseBytes)
        let outcome = Locked<Result<HTTPClientResponse, any Error>?>(nil)
        let answered = Latch()
        transfer.completion = { result in
            outcome.withLock { $0 = result }
            answered.open()
        }
        loop.submit(.start(transfer))
        answered.waitBlocking()
        return try outcome.withLock { $0 }!.get()
    }
}
