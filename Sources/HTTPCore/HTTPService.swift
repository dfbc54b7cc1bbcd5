/// Where a finished response goes. The transport implements it; services call it once.
///
/// `respond` may be called from any thread. Called synchronously inside
/// ``HTTPService/handle(_:writer:)`` (on the connection's loop thread) it is applied at once,
/// with no thread hop: that is how answers that need no I/O stay cheap. Later calls are ignored.
public protocol HTTPResponseWriter: Sendable {
    func respond(_ response: HTTPResponse)
    /// Runs `handler` once if the peer goes away first (stream reset, connection closed, or
    /// shutdown): the service cancels its work. Runs at once when already cancelled.
    func onCancel(_ handler: @escaping @Sendable () -> Void)
    /// Sends `status` and `headers` now and returns the stream the body follows on, instead of
    /// one ``respond(_:)``; nil when already answered or the transport cannot stream.
    /// ``onCancel(_:)`` keeps working until the stream is finished.
    func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPResponseStream)?
}

/// Something that answers HTTP requests, whatever the wire version.
///
/// `handle` is called on a transport loop thread: it must not block. Work that awaits or blocks
/// moves to a task and answers through the writer later.
public protocol HTTPService: Sendable {
    func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter)
}
