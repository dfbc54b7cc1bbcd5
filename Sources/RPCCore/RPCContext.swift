import HTTPCore

/// What a handler knows about its call besides the request message.
public struct RPCContext: Sendable {
    /// The full method path, e.g. `/grpc.health.v1.Health/Check`.
    public var method: String
    /// The request's header fields (custom metadata such as `authorization` included).
    public var metadata: HTTPHeaders
    /// When the caller stops waiting; nil when it sent no grpc-timeout.
    public var deadline: ContinuousClock.Instant?
    /// This process's sequence number for the call, the basis of ``requestID``.
    public var sequenceNumber: UInt64
    /// Who is calling, for role checks and as the actor of what the call changes;
    /// ``Principal/unchecked`` when the server checks no tokens.
    public var principal: Principal

    public init(method: String, metadata: HTTPHeaders = HTTPHeaders(),
                deadline: ContinuousClock.Instant? = nil, sequenceNumber: UInt64 = 0,
                principal: Principal = .unchecked) {
        self.method = method
        self.principal = principal
        self.metadata = metadata
        self.deadline = deadline
        self.sequenceNumber = sequenceNumber
    }

    /// The caller's `x-request-id` when it sent one (so logs join across services), else ours.
    /// Computed on use: the hot path never formats it unless something logs.
    public var requestID: String {
        RPCContext.requestID(metadata: metadata, sequenceNumber: sequenceNumber)
    }

    /// The one request-id formula, for handlers (``requestID``) and the call observer alike.
    static func requestID(metadata: HTTPHeaders, sequenceNumber: UInt64) -> String {
        metadata["x-request-id"] ?? "rpc-" + String(sequenceNumber, radix: 16)
    }
}
