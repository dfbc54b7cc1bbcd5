import HTTP2
import HTTPCore
import ProtobufWire
import RPCCore

/// A blocking gRPC client for unary calls over one reused h2c connection.
///
/// Made for tools and tests that ask one question at a time (`entitlementctl`): each call
/// blocks its thread until the answer or the deadline. The connection opens on the first
/// call and is reused; a broken or GOAWAY'd connection is replaced on the next call. Owned by
/// one thread.
public final class GRPCClient {
    public struct Configuration: Sendable {
        /// Bound on connecting when the call has no deadline of its own.
        public var connectTimeout: Duration
        /// The largest response message accepted (RESOURCE_EXHAUSTED above it).
        public var maxResponseMessageSize: Int
        public var userAgent: String
        public var http2: HTTP2ClientSession.Configuration

        public init(connectTimeout: Duration = .seconds(10), maxResponseMessageSize: Int = 4 * 1024 * 1024,
                    userAgent: String = "entitlementd-rpcclient/1",
                    http2: HTTP2ClientSession.Configuration = HTTP2ClientSession.Configuration()) {
            self.connectTimeout = connectTimeout
            self.maxResponseMessageSize = maxResponseMessageSize
            self.userAgent = userAgent
            self.http2 = http2
        }
    }

    /// Metadata names the protocol itself sets; a caller sending them would corrupt the call.
    static let reservedMetadata: Set<String> = ["content-type", "te", "user-agent", "host", "connection"]

    public let address: ServerAddress
    public let configuration: Configuration
    var connection: ClientConnection?
    /// How many connections this client has opened, for callers (and tests) that care
    /// whether calls shared one.
    public private(set) var connectionsOpened = 0

    public init(address: ServerAddress, configuration: Configuration = Configuration()) {
        self.address = address
        self.configuration = configuration
    }

    deinit { connection?.close() }

    /// Calls `path` (e.g. `/grpc.health.v1.Health/Check`) with one request message and returns
    /// the one response message.
    ///
    /// `metadata` names are sent lowercased; `timeout` becomes grpc-timeout and is also
    /// enforced here (DEADLINE_EXCEEDED, the stream reset, the connection kept).
    public func unary<Request: ProtobufMessage, Response: ProtobufMessage>(
        path: String, request: Request, metadata: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil
    ) throws(RPCClientError) -> Response {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let body = GRPCFraming.frame(request.protobufBytes())
        let bytes = try call(path: path, body: body, metadata: metadata, timeout: timeout, deadline: deadline)
        do {
            return try Response(protobufBytes: bytes)
        } catch {
            throw RPCClientError(.transport, .internal, "cannot decode the response as \(Response.self): \(error)")
        }
    }

    /// Closes the connection (GOAWAY first); the next call opens a new one.
    public func close() {
        connection?.close()
        connection = nil
    }

    private func call(path: String, body: [UInt8], metadata: HTTPHeaders, timeout: Duration?,
                      deadline: ContinuousClock.Instant?) throws(RPCClientError) -> [UInt8] {
        guard path.hasPrefix("/") else {
            throw RPCClientError(.invalidCall, .invalidArgument, "a method path starts with '/', got '\(path)'")
        }
        let fixedHeaders = try headers(metadata)
        // A stream the server refused was never processed, so sending it again is safe; once.
        for _ in 0..<2 {
            let connection = try usableConnection(deadline: deadline)
            var headers = fixedHeaders
            if let deadline {
                // The time left when the request leaves, not when the call began.
                headers.add(name: "grpc-timeout", value: GRPCTimeout.header(for: deadline - .now))
            }
            let streamID = try connection.submit(path: path, headers: headers, body: body)
            var state = UnaryCallState(streamID: streamID, maxMessageSize: configuration.maxResponseMessageSize)
            var outcome: UnaryCallState.Outcome?
            let finished: Bool
            do {
                finished = try connection.run(until: deadline) { event in
                    guard case .complete(let result) = state.handle(event) else { return false }
                    outcome = result
                    return true
                }
            } catch {
                self.connection = nil
                throw error
            }
            guard finished, let outcome else {
                connection.cancel(streamID: streamID)
                throw RPCClientError(.transport, .deadlineExceeded,
                                     "no answer from \(address) within \(timeout.map { "\($0)" } ?? "the deadline")")
            }
            switch outcome {
            case .message(let bytes):
                return bytes
            case .failure(let error):
                // An answer that came before the upload ended (or broke a limit) leaves the
                // stream open; resetting a closed one is harmless.
                connection.cancel(streamID: streamID)
                throw error
            case .refused:
                connection.close()
                self.connection = nil
            }
        }
        throw RPCClientError(.transport, .unavailable, "\(address) refused the call twice (it is shutting down?)")
    }

    func usableConnection(deadline: ContinuousClock.Instant?) throws(RPCClientError) -> ClientConnection {
        if let connection {
            connection.refresh()
            if connection.isUsable { return connection }
            connection.close()
            self.connection = nil
        }
        let connectDeadline = min(deadline ?? .now + configuration.connectTimeout, .now + configuration.connectTimeout)
        let fresh = try ClientConnection(
            address: address, configuration: configuration.http2, deadline: connectDeadline)
        connectionsOpened += 1
        connection = fresh
        return fresh
    }

    /// The request headers every attempt shares; checked before anything is sent.
    func headers(_ metadata: HTTPHeaders) throws(RPCClientError) -> HTTPHeaders {
        var headers: HTTPHeaders = ["content-type": "application/grpc", "te": "trailers"]
        headers.reserveCapacity(4 + metadata.count)
        headers.add(name: "user-agent", value: configuration.userAgent)
        for field in metadata {
            let name = field.name.lowercased()
            guard !name.isEmpty, !name.hasPrefix(":"), !name.hasPrefix("grpc-"),
                !GRPCClient.reservedMetadata.contains(name)
            else {
                throw RPCClientError(
                    .invalidCall, .invalidArgument, "metadata '\(field.name)' is reserved for the protocol")
            }
            headers.add(name: name, value: field.value)
        }
        return headers
    }
}

@available(*, unavailable)
extension GRPCClient: Sendable {}
