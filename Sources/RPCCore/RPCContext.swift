import HTTPCore

/// What a handler knows about its call besides the request message.
public struct RPCContext: Sendable {
    /// The full method path, e.g. `/grpc.health.v1.Health/Check`.
    public var method: String
    /// The request's header fields (custom metadata such as `authorization` included).
    public var metadata: HTTPHeaders
    /// When the caller stops waiting; nil when it sent no grpc-timeout.
    public var deadline: ContinuousClock.Instant?

    public init(method: String, metadata: HTTPHeaders = HTTPHeaders(),
                deadline: ContinuousClock.Instant? = nil) {
        self.method = method
        self.metadata = metadata
        self.deadline = deadline
    }
}
