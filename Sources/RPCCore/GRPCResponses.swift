import HTTPCore

/// The two response shapes gRPC uses over HTTP/2.
enum GRPCResponses {
    static let okTrailers: HTTPHeaders = ["grpc-status": "0"]
    static let grpcHeaders: HTTPHeaders = ["content-type": "application/grpc"]

    /// Headers, one DATA message, trailers with grpc-status 0.
    static func success(_ body: RPCResponseBody) -> HTTPResponse {
        HTTPResponse(status: 200, headers: grpcHeaders, body: body.framed, trailers: okTrailers)
    }

    /// A trailers-only response: one HEADERS frame carrying the status, ending the stream.
    /// Anything but an ``RPCError`` becomes INTERNAL with a safe message; the details go to
    /// `report` (logs), never to the caller.
    static func failure(_ error: any Error, method: String = "",
                        report: (@Sendable (String, any Error) -> Void)? = nil) -> HTTPResponse {
        let rpcError: RPCError
        if let known = error as? RPCError {
            rpcError = known
        } else if error is CancellationError {
            rpcError = RPCError(.cancelled, "call cancelled")
        } else {
            report?(method, error)
            rpcError = RPCError(.internal, "internal server error")
        }
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

    /// The grpc-status a response carries, for observation.
    static func code(of response: HTTPResponse) -> RPCCode {
        let value = response.trailers?["grpc-status"] ?? response.headers["grpc-status"] ?? "2"
        return RPCCode(rawValue: Int(value) ?? 2)
    }
}

/// Reports each call's outcome once, when its single response is written.
///
/// "Once" holds because ``GRPCServer`` writes exactly one response per call: the async path
/// answers with whichever of the handler and the deadline finishes first and drops the other.
struct ObservedWriter: HTTPResponseWriter {
    let inner: any HTTPResponseWriter
    let method: String
    let start: ContinuousClock.Instant
    let observer: GRPCServer.CallObserver?
    let requestID: @Sendable () -> String

    func respond(_ response: HTTPResponse) { respond(response, failure: nil) }

    /// Writes the call's answer; `failure` is the error that ended it, whose cause the observer
    /// may log (it never reaches the caller).
    func respond(_ response: HTTPResponse, failure: (any Error)?) {
        if let observer {
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            observer(GRPCServer.CompletedCall(method: method, code: GRPCResponses.code(of: response),
                                              seconds: seconds, cause: (failure as? RPCError)?.cause,
                                              requestIDProvider: requestID))
        }
        inner.respond(response)
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) { inner.onCancel(handler) }
}
