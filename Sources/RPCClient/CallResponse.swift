import HTTPCore
import RPCCore

/// A call's response messages as they arrive, and the failures unary and streaming calls
/// report alike, so both read the framing and the end of a call the same way.
struct ResponseDeframer {
    private var deframer: Deframer

    init(maxMessageSize: Int) {
        deframer = Deframer(limit: maxMessageSize)
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
