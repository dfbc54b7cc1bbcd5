import HTTP2
import HTTPCore
import RPCCore

/// The response side of one server-streaming call: HTTP/2 events in, messages and at most one
/// final outcome out. Shares the unary call's reading of heads, trailers and resets.
struct StreamingCallState {
    enum Action {
        case none
        /// The response headers arrived: the server accepted the call and the stream is open.
        case opened
        /// Whole messages that arrived, in order.
        case messages([[UInt8]])
        /// The call is over: nil for OK, otherwise why.
        case complete(RPCClientError?)
    }

    let streamID: Int32
    private var response: ResponseDeframer
    private var done = false

    init(streamID: Int32, maxMessageSize: Int) {
        self.streamID = streamID
        response = ResponseDeframer(maxMessageSize: maxMessageSize)
    }

    mutating func handle(_ event: HTTP2ClientEvent) -> Action {
        guard !done else { return .none }
        switch event {
        case .response(let id, let status, let headers, let endStream) where id == streamID:
            if headers["grpc-status"] != nil || endStream { return finish(headers) }
            if let failure = UnaryCallState.headFailure(status: status, headers: headers) {
                done = true
                return .complete(failure)
            }
            return .opened
        case .data(let id, let bytes) where id == streamID:
            do {
                let messages = try response.messages(in: bytes)
                return messages.isEmpty ? .none : .messages(messages)
            } catch {
                done = true
                return .complete(error)
            }
        case .trailers(let id, let trailers) where id == streamID:
            return finish(trailers)
        case .streamClosed(let id, let errorCode) where id == streamID:
            done = true
            if errorCode == HTTP2ErrorCode.refusedStream {
                return .complete(
                    RPCClientError(.transport, .unavailable, "the server refused the call (shutting down?)"))
            }
            return .complete(UnaryCallState.resetFailure(errorCode: errorCode))
        default:
            return .none
        }
    }

    private mutating func finish(_ block: HTTPHeaders) -> Action {
        done = true
        return .complete(response.endFailure(block))
    }
}
