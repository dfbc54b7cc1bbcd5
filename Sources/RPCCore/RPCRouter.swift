import ProtobufWire

/// The methods a server offers, keyed by `/package.Service/Method`.
///
/// How a method runs is decided here, at registration, not by the transport: an ``inline``
/// method answers from memory on the connection's loop thread with no task hop (the hot path);
/// an ``async`` method runs as a task that may await I/O, is cancelled when the caller goes
/// away and is raced against its deadline.
public struct RPCRouter: Sendable {
    public enum Execution: Sendable {
        case inline(@Sendable (ArraySlice<UInt8>, RPCContext) throws -> RPCResponseBody)
        case async(@Sendable (ArraySlice<UInt8>, RPCContext) async throws -> RPCResponseBody)
        /// One request, a stream of responses (``RPCServerStream``); runs as a task like ``async``.
        case serverStreaming(@Sendable (ArraySlice<UInt8>, RPCContext, ServerStreamingCall) async throws -> Void)
    }

    public struct Method: Sendable {
        public var execution: Execution
        /// False for methods callers use before they have credentials (health checks).
        public var requiresAuthentication: Bool
        /// A caller needs one of these (``Principal/Role``) when tokens are checked at all.
        public var roles: Set<Principal.Role> = Principal.serviceCallers
    }

    public private(set) var methods: [String: Method] = [:] {
        didSet { routes = methods.map { (path: $0.key, utf8Count: $0.key.utf8.count, method: $0.value) } }
    }
    /// ``methods`` again, searched by ``route(forPath:)``: a server registers a few dozen methods
    /// at most, so comparing lengths and then bytes finds one sooner than hashing the path.
    private var routes: [(path: String, utf8Count: Int, method: Method)] = []

    public init() {}

    /// The method registered for `path` and the router's own copy of the path (the same string
    /// on every call, so metrics can compare it by identity); nil for a path nobody registered.
    ///
    /// Every call looks its path up here: a `Dictionary` lookup hashed the 50-byte path each time
    /// (SipHash, a few hundred instructions) before comparing it anyway.
    public func route(forPath path: String) -> (path: String, method: Method)? {
        let utf8Count = path.utf8.count
        for route in routes where route.utf8Count == utf8Count && route.path == path {
            return (route.path, route.method)
        }
        // Strings are equal by Unicode canonical equivalence, whose spellings of one path can
        // differ in length (a KELVIN SIGN for a K): the dictionary decides those, and unknown paths.
        guard let index = methods.index(forKey: path) else { return nil }
        return (methods[index].key, methods[index].value)
    }

    /// Registers a method that answers without awaiting: it runs on a loop thread and must not
    /// block (reads from memory only).
    public mutating func registerInline<Request: ProtobufMessage, Response: ProtobufMessage>(
        _ path: String, requiresAuthentication: Bool = true,
        roles: Set<Principal.Role> = Principal.serviceCallers,
        _ handler: @escaping @Sendable (Request, RPCContext) throws -> Response
    ) {
        registerInlineFramed(path, requiresAuthentication: requiresAuthentication, roles: roles) {
            (request: Request, context) in
            RPCResponseBody(try handler(request, context))
        }
    }

    /// Registers an inline method (as ``registerInline(_:requiresAuthentication:_:)``) whose
    /// handler frames its response itself: one that keeps answers already encoded hands them out
    /// without encoding them again.
    public mutating func registerInlineFramed<Request: ProtobufMessage>(
        _ path: String, requiresAuthentication: Bool = true,
        roles: Set<Principal.Role> = Principal.serviceCallers,
        _ handler: @escaping @Sendable (Request, RPCContext) throws -> RPCResponseBody
    ) {
        methods[path] = Method(execution: .inline { bytes, context in
            try handler(try RPCRouter.decode(Request.self, bytes), context)
        }, requiresAuthentication: requiresAuthentication, roles: roles)
    }

    /// Registers a method that may await (storage, calls to other services).
    public mutating func register<Request: ProtobufMessage, Response: ProtobufMessage>(
        _ path: String, requiresAuthentication: Bool = true,
        roles: Set<Principal.Role> = Principal.serviceCallers,
        _ handler: @escaping @Sendable (Request, RPCContext) async throws -> Response
    ) {
        methods[path] = Method(execution: .async { bytes, context in
            let request = try RPCRouter.decode(Request.self, bytes)
            return RPCResponseBody(try await handler(request, context))
        }, requiresAuthentication: requiresAuthentication, roles: roles)
    }

    /// Registers a server-streaming method: the handler sends responses as it has them and
    /// returns (OK) or throws (that status) to end the call; see ``RPCServerStream``.
    public mutating func registerServerStreaming<Request: ProtobufMessage, Response: ProtobufMessage>(
        _ path: String, requiresAuthentication: Bool = true,
        roles: Set<Principal.Role> = Principal.serviceCallers,
        _ handler: @escaping @Sendable (Request, RPCContext, RPCServerStream<Response>) async throws -> Void
    ) {
        methods[path] = Method(execution: .serverStreaming { bytes, context, call in
            let request = try RPCRouter.decode(Request.self, bytes)
            try await handler(request, context, RPCServerStream(call: call))
        }, requiresAuthentication: requiresAuthentication, roles: roles)
    }

    static func decode<M: ProtobufMessage>(_ type: M.Type, _ bytes: ArraySlice<UInt8>) throws -> M {
        do {
            return try M(protobufBytes: bytes)
        } catch {
            throw RPCError(.invalidArgument, "request message could not be decoded as \(M.self): \(error)")
        }
    }
}
