import HTTPCore
import Synchronization

/// Handles gRPC calls arriving as HTTP/2 requests: validates the call, routes it by `:path`,
/// runs the handler the way it was registered and writes status in trailers.
///
/// It sees gRPC requests only: the composition root routes by content type (``contentType``),
/// so the same port's plain HTTP routes never pass through here. (Not a server: the HTTP
/// server module owns sockets and connections and hands requests to this.)
public struct GRPCHandler: HTTPService {
    /// The content type every gRPC request carries, possibly with a suffix (`+proto`).
    public static let contentType = "application/grpc"

    public struct Configuration: Sendable {
        /// The largest request message accepted (RESOURCE_EXHAUSTED above it).
        public var maxReceiveMessageSize: Int
        /// Bytes of a streaming call's responses the client may leave unread (HTTP/2 flow
        /// control holds them back) before the call is ended with RESOURCE_EXHAUSTED.
        public var maxBufferedStreamBytes: Int
        /// How long ``RPCServerStream/sendWhenReady(_:)`` waits for a client that reads nothing.
        public var streamStallTimeout: Duration
        public init(maxReceiveMessageSize: Int = 4 * 1024 * 1024, maxBufferedStreamBytes: Int = 256 * 1024,
                    streamStallTimeout: Duration = .seconds(30)) {
            self.maxReceiveMessageSize = maxReceiveMessageSize
            self.maxBufferedStreamBytes = maxBufferedStreamBytes
            self.streamStallTimeout = streamStallTimeout
        }
    }

    /// Told about every finished call, for metrics and logs.
    public typealias CallObserver = @Sendable (_ call: CompletedCall) -> Void

    /// What the observer learns about one call.
    public struct CompletedCall: Sendable {
        public var method: String
        public var code: RPCCode
        public var seconds: Double
        /// What lay behind a failure (an ``RPCError``'s cause): for the server's log only.
        public var cause: (any Error & Sendable)?
        /// The call's metadata and sequence number: what its request id is made of. Kept as
        /// values rather than a closure, so observing a call allocates nothing.
        let metadata: HTTPHeaders
        let sequenceNumber: UInt64
        /// Formatted only when asked for (logging), never on the plain metrics path.
        public var requestID: String { RPCContext.requestID(metadata: metadata, sequenceNumber: sequenceNumber) }
    }
    /// Told about handler failures that were not ``RPCError``s (their details never reach the caller).
    public typealias FailureReporter = @Sendable (_ method: String, _ error: any Error) -> Void

    let router: RPCRouter
    let configuration: Configuration
    let authenticator: BearerTokenAuthenticator?
    let observer: CallObserver?
    let reportFailure: FailureReporter?
    let sequence = CallSequence()

    public init(router: RPCRouter, configuration: Configuration = Configuration(),
                authenticator: BearerTokenAuthenticator? = nil,
                observer: CallObserver? = nil, reportFailure: FailureReporter? = nil) {
        self.router = router
        self.configuration = configuration
        self.authenticator = authenticator
        self.observer = observer
        self.reportFailure = reportFailure
    }

    public func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
        guard request.contentTypeStarts(with: GRPCHandler.contentType) else {
            // Misrouted: the gRPC spec's answer to a request that is not gRPC.
            writer.respond(.text(415, "gRPC needs content-type application/grpc\n"))
            return
        }
        let start = ContinuousClock.now
        let number = sequence.next()
        // One route lookup per call. Unknown paths are observed as "unknown" so a caller
        // cannot grow metric cardinality; known ones by the router's own key, the same string
        // on every call (the observer can compare it by identity instead of hashing it).
        let found = router.route(forPath: request.path)
        let route = found?.method
        let observedName = found?.path ?? "unknown"
        let writer = ObservedWriter(inner: writer, method: observedName, start: start, observer: observer,
                                    metadata: request.headers, sequenceNumber: number)
        do {
            let (method, message, context) = try prepare(request, route: route, start: start, sequenceNumber: number)
            run(method, message: message, context: context, writer: writer)
        } catch {
            writer.fail(error)
        }
    }

    /// Everything that can reject a call before its handler runs, in the order the gRPC spec
    /// and common sense give: protocol, limits, routing, authentication, deadline, decoding.
    private func prepare(_ request: HTTPRequest, route: RPCRouter.Method?, start: ContinuousClock.Instant,
                         sequenceNumber: UInt64) throws(RPCError)
        -> (RPCRouter.Method, ArraySlice<UInt8>, RPCContext) {
        guard request.version == .http2, request.method == "POST" else {
            throw RPCError(.internal, "gRPC needs HTTP/2 POST")
        }
        if request.headerLimitExceeded {
            throw RPCError(.resourceExhausted, "request metadata exceeds the server's header list limit")
        }
        guard let method = route else {
            throw RPCError(.unimplemented, "method \(request.path) is not implemented by this server")
        }
        var principal = Principal.unchecked
        if let authenticator {
            if method.requiresAuthentication {
                guard let caller = authenticator.principal(authorization: request.headers["authorization"]) else {
                    throw RPCError(.unauthenticated,
                                   "missing or invalid bearer token: send metadata 'authorization: Bearer <token>'")
                }
                guard caller.holdsAny(of: method.roles) else {
                    throw RPCError(.permissionDenied, Principal.refusal(caller, needs: method.roles))
                }
                principal = caller
            } else {
                principal = .anonymous
            }
        }
        var deadline: ContinuousClock.Instant?
        if let timeout = request.headers["grpc-timeout"] {
            guard let nanoseconds = GRPCTimeout.nanoseconds(timeout) else {
                throw RPCError(.invalidArgument, "malformed grpc-timeout '\(timeout)'")
            }
            deadline = start.advanced(by: .nanoseconds(nanoseconds))
        }
        if request.bodyLimitExceeded {
            throw RPCError(
                .resourceExhausted,
                "request message larger than the server's limit of \(configuration.maxReceiveMessageSize) bytes")
        }
        let messages: (first: GRPCFraming.Message?, count: Int)
        do {
            messages = try GRPCFraming.firstMessage(in: request.body[...], limit: configuration.maxReceiveMessageSize)
        } catch .tooLarge(let length, let limit) {
            throw RPCError(
                .resourceExhausted, "request message of \(length) bytes exceeds the server's limit of \(limit) bytes")
        } catch {
            throw RPCError(.internal, "malformed gRPC message framing (\(error))")
        }
        guard messages.count == 1, let message = messages.first else {
            throw RPCError(.internal, "a unary call needs exactly one request message, got \(messages.count)")
        }
        if message.compressed {
            let encoding = request.headers["grpc-encoding"] ?? "identity"
            throw RPCError(
                .unimplemented,
                "message compression '\(encoding)' is not supported; send uncompressed (grpc-accept-encoding: identity)"
            )
        }
        if let deadline, deadline <= ContinuousClock.now {
            throw RPCError(.deadlineExceeded, "deadline expired before the call started")
        }
        return (method, message.bytes, RPCContext(method: request.path, metadata: request.headers,
                                                      deadline: deadline, sequenceNumber: sequenceNumber,
                                                      principal: principal))
    }

    private func run(_ method: RPCRouter.Method, message: ArraySlice<UInt8>, context: RPCContext,
                     writer: ObservedWriter) {
        switch method.execution {
        case .inline(let handler):
            do {
                writer.succeed(try handler(message, context))
            } catch {
                writer.fail(error, report: reportFailure)
            }
        case .async(let handler):
            let reportFailure = self.reportFailure
            let peerReset = PeerReset(deadline: context.deadline)
            let race = CallRace<RPCResponseBody>(peerReset: peerReset) {
                switch $0 {
                case .success(let body): writer.succeed(body)
                case .failure(let error): writer.fail(error, report: reportFailure)
                }
            }
            let task = Task {
                await race.run { try await handler(message, context) }
            }
            race.arm(deadline: context.deadline, cancelling: task)
            writer.onCancel {
                peerReset.record()
                task.cancel()
            }
        case .serverStreaming(let handler):
            runStreaming(handler, message: message, context: context, writer: writer)
        }
    }
}

/// Numbers calls for request ids: one relaxed atomic add per call.
final class CallSequence: Sendable {
    private let counter = Atomic<UInt64>(0)
    func next() -> UInt64 { counter.wrappingAdd(1, ordering: .relaxed).newValue }
}
