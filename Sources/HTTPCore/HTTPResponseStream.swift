/// A response whose body is sent as it is produced: headers once, body bytes as they come,
/// then trailers (gRPC server streaming).
///
/// The transport keeps the bytes the peer's flow control has not taken yet, and counts them:
/// ``write(_:limit:)`` refuses to go past the caller's bound, so a peer that stops reading costs
/// at most that much memory and the service decides how to end the call. Every method may be
/// called from any thread.
public protocol HTTPResponseStream: Sendable {
    /// Queues `bytes` after everything written before, unless the bytes not yet taken by the
    /// peer would then exceed `limit` (nothing is queued) or the stream is gone.
    func write(_ bytes: [UInt8], limit: Int) -> HTTPStreamWrite
    /// Bytes written and not yet taken by the peer's flow control.
    var bufferedBytes: Int { get }
    /// Runs `handler` once, as soon as ``bufferedBytes`` is at most `threshold` or the stream is
    /// gone (at once when that is already so). On the loop thread: it must not block.
    func whenBuffered(atMost threshold: Int, _ handler: @escaping @Sendable () -> Void)
    /// Sends everything queued, then `trailers`, which end the stream.
    func finish(trailers: HTTPHeaders)
    /// Ends the stream now with `trailers`, dropping the queued bytes the peer has not taken: for
    /// calls that fail, so a peer that does not read still learns why at once.
    func abort(trailers: HTTPHeaders)
}

/// What became of one ``HTTPResponseStream/write(_:limit:)``.
public enum HTTPStreamWrite: Sendable, Equatable {
    /// Queued; `buffered` bytes (these included) wait for the peer.
    case queued(buffered: Int)
    /// Refused: `buffered` bytes already wait and these would pass the limit.
    case overLimit(buffered: Int)
    /// The stream or its connection is gone (reset, closed, or already finished).
    case closed
}

extension HTTPResponseWriter {
    /// Transports that cannot stream answer nil; the caller then responds in one piece.
    public func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPResponseStream)? { nil }
}
