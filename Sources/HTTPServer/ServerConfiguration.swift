import HTTP1
import HTTP2

/// Everything the transport needs to listen and protect itself; each limit is a flag.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Event-loop threads; each owns its connections for their whole life.
    public var threads: Int
    /// Past this many open connections, new ones are closed at accept.
    public var maxConnections: Int
    public var http2: HTTP2Limits
    public var http1: HTTP1RequestParser.Limits
    /// A connection with nothing in flight for this long is closed (GOAWAY first on HTTP/2).
    public var idleTimeout: Duration
    /// A request head (or the HTTP/2 preface) must arrive within this long: slowloris defence.
    public var headerReadTimeout: Duration
    /// While a connection has streamed responses open, a PING goes out after this long without
    /// traffic from the peer (proxies see the stream is alive); three without an answer close it.
    public var streamKeepalive: Duration

    public init(host: String = "127.0.0.1", port: Int = 50051, threads: Int = 1,
                maxConnections: Int = 10_000, http2: HTTP2Limits = HTTP2Limits(),
                http1: HTTP1RequestParser.Limits = HTTP1RequestParser.Limits(),
                idleTimeout: Duration = .seconds(300), headerReadTimeout: Duration = .seconds(10),
                streamKeepalive: Duration = .seconds(20)) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxConnections = maxConnections
        self.http2 = http2
        self.http1 = http1
        self.idleTimeout = idleTimeout
        self.headerReadTimeout = headerReadTimeout
        self.streamKeepalive = streamKeepalive
    }
}
