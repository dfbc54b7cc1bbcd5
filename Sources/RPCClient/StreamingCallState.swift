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

    private var response: CallResponse

    init(streamID: Int32, maxMessageSize: Int) {
        response = CallResponse(streamID: streamID, maxMessageSize: maxMessageSize)
    }

    mutating func handle(_ event: HTTP2ClientEvent) -> Action {
        guard let event = response.event(event) else { return .none }
        let action = action(for: event)
        if case .complete = action { response.decide() }
        return action
    }

    private mutating func action(for event: CallResponse.Event) -> Action {
        switch event {
        case .head(let status, let headers, let endStream):
            if headers["grpc-status"] != nil || endStream { return .complete(response.endFailure(headers)) }
            if let failure = UnaryCallState.headFailure(status: status, headers: headers) {
                return .complete(failure)
            }
            return .opened
        case .data(let bytes):
            do {
                let messages = try response.messages(in: bytes)
                return messages.isEmpty ? .none : .messages(messages)
            } catch {
                return .complete(error)
            }
        case .trailers(let trailers):
            return .complete(response.endFailure(trailers))
        case .closed(let errorCode):
            if errorCode == HTTP2ErrorCode.refusedStream {
                return .complete(
                    RPCClientError(.transport, .unavailable, "the server refused the call (shutting down?)"))
            }
            return .complete(UnaryCallState.resetFailure(errorCode: errorCode))
        }
    }
}
