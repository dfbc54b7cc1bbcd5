import HTTP2
import HTTPCore
import RPCCore

/// The response side of one unary call as a value-type state machine: HTTP/2 events in,
/// at most one outcome out. No I/O, so every response shape is testable without sockets.
///
/// The status comes from the trailers, or from the head when the server answered
/// trailers-only (one HEADERS frame with END_STREAM, as every error is sent).
struct UnaryCallState {
    enum Outcome {
        case message([UInt8])
        case failure(RPCClientError)
        /// The server never processed the stream (REFUSED_STREAM, or past a GOAWAY's last
        /// stream): safe to send again on a new connection.
        case refused
    }

    enum Action {
        case none
        /// The call is decided; reset the stream if it is still open (an answer arrived
        /// before the upload ended, or the response broke a limit).
        case complete(Outcome)
    }

    private var response: CallResponse
    private var messages: [[UInt8]] = []

    init(streamID: Int32, maxMessageSize: Int) {
        response = CallResponse(streamID: streamID, maxMessageSize: maxMessageSize)
    }

    mutating func handle(_ event: HTTP2ClientEvent) -> Action {
        let outcome: Outcome?
        switch response.event(event) {
        case .head(let status, let headers, let endStream)?:
            outcome = head(status: status, headers: headers, endStream: endStream)
        case .data(let bytes)?:
            outcome = data(bytes)
        case .trailers(let trailers)?:
            outcome = finish(with: trailers)
        case .closed(let errorCode)?:
            outcome = closed(errorCode: errorCode)
        case nil:
            outcome = nil
        }
        guard let outcome else { return .none }
        response.decide()
        return .complete(outcome)
    }

    private mutating func head(status: Int, headers: HTTPHeaders, endStream: Bool) -> Outcome? {
        if headers["grpc-status"] != nil || endStream {
            return finish(with: headers)
        }
        return UnaryCallState.headFailure(status: status, headers: headers).map { .failure($0) }
    }

    /// What is wrong with a response head that does not end the call, if anything: not HTTP
    /// 200, or not gRPC's content type.
    static func headFailure(status: Int, headers: HTTPHeaders) -> RPCClientError? {
        guard status == 200 else {
            return RPCClientError(.transport, UnaryCallState.code(httpStatus: status),
                                  "the server answered HTTP \(status), not gRPC")
        }
        let contentType = headers["content-type"] ?? ""
        guard contentType.utf8.starts(with: "application/grpc".utf8) else {
            return RPCClientError(.transport, .internal,
                                  "the server answered content-type '\(contentType)', not application/grpc")
        }
        return nil
    }

    private mutating func data(_ bytes: [UInt8]) -> Outcome? {
        do {
            messages += try response.messages(in: bytes)
        } catch {
            return .failure(error)
        }
        return nil
    }

    /// Reads grpc-status and grpc-message from the block that ended the call.
    private func finish(with block: HTTPHeaders) -> Outcome {
        if let failure = response.endFailure(block) {
            return .failure(failure)
        }
        guard messages.count == 1 else {
            return .failure(RPCClientError(.transport, .internal,
                                           "a unary call needs exactly one response message, got \(messages.count)"))
        }
        return .message(messages[0])
    }

    /// The stream ended without a status block: the code says why (gRPC's mapping of
    /// RST_STREAM codes).
    private func closed(errorCode: UInt32) -> Outcome {
        if errorCode == HTTP2ErrorCode.refusedStream { return .refused }
        return .failure(UnaryCallState.resetFailure(errorCode: errorCode))
    }

    /// gRPC's mapping of an RST_STREAM code (or a close without a status block) to a status.
    static func resetFailure(errorCode: UInt32) -> RPCClientError {
        let code: RPCCode
        switch errorCode {
        case HTTP2ErrorCode.cancel: code = .cancelled
        case HTTP2ErrorCode.enhanceYourCalm: code = .resourceExhausted
        case HTTP2ErrorCode.inadequateSecurity: code = .permissionDenied
        default: code = .internal
        }
        let reason = errorCode == 0 ? "the stream ended without a grpc-status"
            : "the stream was reset (HTTP/2 error code \(errorCode))"
        return RPCClientError(.transport, code, reason)
    }

    /// gRPC's mapping for answers from something that is not a gRPC server (a proxy, say).
    static func code(httpStatus: Int) -> RPCCode {
        switch httpStatus {
        case 400: .internal
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .unimplemented
        case 429, 502, 503, 504: .unavailable
        default: .unknown
        }
    }
}
