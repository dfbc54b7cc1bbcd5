import HTTP2
import HTTPCore
import RPCCore

/// One call's side of the connection: its stream's events until the call is decided, its
/// messages as they arrive, and the failures unary and streaming calls report alike, so both
/// read the stream, the framing and the end of a call the same way.
struct CallResponse {
    /// An event of this call's stream, without the stream id every case would repeat.
    enum Event {
        case head(status: Int, headers: HTTPHeaders, endStream: Bool)
        case data([UInt8])
        case trailers(HTTPHeaders)
        case closed(errorCode: UInt32)
    }

    let streamID: Int32
    private var deframer: Deframer
    private var decided = false

    init(streamID: Int32, maxMessageSize: Int) {
        self.streamID = streamID
        deframer = Deframer(limit: maxMessageSize)
    }

    /// `event` as this call sees it; nil for another stream's or the connection's events, and
    /// for every event once ``decide()`` was called (the outcome is reported once).
    func event(_ event: HTTP2ClientEvent) -> Event? {
        guard !decided else { return nil }
        switch event {
        case .response(let id, let status, let headers, let endStream) where id == streamID:
            return .head(status: status, headers: headers, endStream: endStream)
        case .data(let id, let bytes) where id == streamID:
            return .data(bytes)
        case .trailers(let id, let trailers) where id == streamID:
            return .trailers(trailers)
        case .streamClosed(let id, let errorCode) where id == streamID:
            return .closed(errorCode: errorCode)
        default:
            return nil
        }
    }

    /// The call's outcome is known: later events of its stream are ignored.
    mutating func decide() {
        decided = true
    }

    /// The whole messages `bytes` completes, in order; a message over the limit or broken
    /// framing ends the call.
    mutating func messages(in bytes: [UInt8]) throws(RPCClientError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        do {
            try deframer.append(bytes[...]) { messages.append(Array($0.bytes)) }
        } catch .tooLarge(let length, let limit) {
            throw RPCClientError(.transport, .resourceExhausted,
                                 "response message of \(length) bytes exceeds this client's limit of \(limit) bytes")
        } catch {
            throw RPCClientError(.transport, .internal, "malformed gRPC response framing (\(error))")
        }
        return messages
    }

    /// Why the block that ended the call fails it (its grpc-status, or a message cut off); nil
    /// when the call ended OK.
    func endFailure(_ block: HTTPHeaders) -> RPCClientError? {
        if let error = RPCClientError(endOfCall: block) {
            return error
        }
        guard deframer.isAtBoundary else {
            return RPCClientError(.transport, .internal, "the response ended inside a message")
        }
        return nil
    }
}
