/// An HTTP/1.1 and HTTP/2 client over libcurl for the service's calls to Apple: kept-alive
/// connections, TLS verified against the system's CA store, a time budget per request, and
/// cancellation of the awaiting task ending the transfer.
///
/// Replaces FoundationNetworking's URLSession, which wraps the same libcurl but hops through
/// several dispatch queues per request: half of SubmitReceipt's CPU at zero Apple latency was
/// URLSession and its thread switches (issue 14). Build one per process and share it.
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
                transfer.continuation = continuation
                loop.submit(.start(transfer))
            }
        } onCancel: {
            loop.submit(.cancel(transfer))
        }
    }
}
