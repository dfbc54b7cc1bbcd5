import HTTPCore
import ServiceRuntime

/// The two response shapes gRPC uses over HTTP/2.
enum GRPCResponses {
    static let okTrailers: HTTPHeaders = ["grpc-status": "0"]
    static let grpcHeaders: HTTPHeaders = ["content-type": "application/grpc"]

    /// Headers, one DATA message, trailers with grpc-status 0.
    static func success(_ body: RPCResponseBody) -> HTTPResponse {
        HTTPResponse(status: 200, headers: grpcHeaders, body: body.framed, trailers: okTrailers)
    }

    /// The status a call that failed with `error` ends with. Anything but an ``RPCError``
    /// becomes INTERNAL with a safe message; the details go to `report` (logs), never to the
    /// caller.
    static func status(for error: any Error, method: String = "",
                       report: (@Sendable (String, any Error) -> Void)? = nil) -> RPCError {
        if let known = error as? RPCError { return known }
        if error is CancellationError { return RPCError(.cancelled, "call cancelled") }
        report?(method, error)
        return RPCError(.internal, "internal server error")
    }

    /// The trailers that end a streamed call with `rpcError`'s status.
    static func trailers(_ rpcError: RPCError) -> HTTPHeaders {
        var trailers: HTTPHeaders = ["grpc-status": String(rpcError.code.rawValue)]
        if !rpcError.message.isEmpty {
            trailers.add(name: "grpc-message", value: PercentEncoding.encode(rpcError.message))
        }
        return trailers
    }

    /// A trailers-only response: one HEADERS frame carrying the status, ending the stream.
    static func failure(_ rpcError: RPCError) -> HTTPResponse {
        var headers = grpcHeaders
        headers.add(name: "grpc-status", value: String(rpcError.code.rawValue))
        if !rpcError.message.isEmpty {
            headers.add(name: "grpc-message", value: PercentEncoding.encode(rpcError.message))
        }
        if rpcError.code == .unimplemented, rpcError.message.contains("compression") {
            headers.add(name: "grpc-accept-encoding", value: "identity")
        }
        return HTTPResponse(status: 200, headers: headers)
    }
}

/// Writes a call's one answer and reports its outcome once, with the status it was given
/// (never read back from the headers it wrote).
///
/// "Once" holds because ``GRPCHandler`` writes exactly one response per call: the async path
/// answers with whichever of the handler and the deadline finishes first and drops the other.
struct ObservedWriter: Sendable {
    let inner: any HTTPResponseWriter
    let method: String
    let start: ContinuousClock.Instant
    let observer: GRPCHandler.CallObserver?
    /// For the request id, formatted only if the observer asks (``GRPCHandler/CompletedCall/requestID``).
    let metadata: HTTPHeaders
    let sequenceNumber: UInt64

    /// Answers OK with `body`.
    func succeed(_ body: RPCResponseBody) {
        observe(.ok, cause: nil)
        inner.respond(GRPCResponses.success(body))
    }

    /// Answers with the status `error` ends the call with (``GRPCResponses/status(for:method:report:)``);
    /// an ``RPCError``'s cause goes to the observer, which may log it, never to the caller.
    func fail(_ error: any Error, report: (@Sendable (String, any Error) -> Void)? = nil) {
        let status = GRPCResponses.status(for: error, method: method, report: report)
        observe(status.code, cause: status.cause)
        inner.respond(GRPCResponses.failure(status))
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) { inner.onCancel(handler) }

    func observe(_ code: RPCCode, cause: (any Error & Sendable)?) {
        guard let observer else { return }
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.inSeconds
        observer(GRPCHandler.CompletedCall(method: method, code: code, seconds: seconds, cause: cause,
                                           metadata: metadata, sequenceNumber: sequenceNumber))
    }
}
