/// Per-connection limits the HTTP/2 session enforces and advertises in its SETTINGS.
public struct HTTP2Limits: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: gRPC clients queue calls beyond it instead of failing.
    public var maxConcurrentStreams: UInt32
    /// Bytes of header fields per request (name + value + 32 each, as RFC 9113 counts them).
    public var maxHeaderListSize: Int
    /// Bytes of request body kept per stream; past it the body is dropped and flagged.
    public var maxRequestBodySize: Int
    /// Per-stream receive window: large enough that a few-hundred-KB receipt is not
    /// throttled by WINDOW_UPDATE round trips.
    public var initialWindowSize: UInt32

    public init(maxConcurrentStreams: UInt32 = 256, maxHeaderListSize: Int = 16 * 1024,
                maxRequestBodySize: Int = 4 * 1024 * 1024, initialWindowSize: UInt32 = 1 << 20) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxHeaderListSize = maxHeaderListSize
        self.maxRequestBodySize = maxRequestBodySize
        self.initialWindowSize = initialWindowSize
    }
}
