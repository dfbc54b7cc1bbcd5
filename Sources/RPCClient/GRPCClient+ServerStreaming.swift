import HTTPCore
import ProtobufWire
import RPCCore

extension GRPCClient {
    /// Calls a server-streaming method and hands each response to `onMessage` as it arrives.
    ///
    /// `onOpen` runs when the response headers arrive (the server accepted the call).
    /// Returns when the server ends the call with OK, or when `shouldStop` (asked several times
    /// a second, e.g. "was Ctrl-C pressed?") says so: the stream is then reset (CANCEL) and the
    /// connection kept. Throws the server's status, or DEADLINE_EXCEEDED when `timeout` passes.
    public func serverStreaming<Request: ProtobufMessage, Response: ProtobufMessage>(
        path: String, request: Request, metadata: HTTPHeaders = HTTPHeaders(), timeout: Duration? = nil,
        shouldStop: () -> Bool = { false }, onOpen: () -> Void = {}, onMessage: (Response) throws -> Void
    ) throws {
        guard path.hasPrefix("/") else {
            throw RPCClientError(.invalidCall, .invalidArgument, "a method path starts with '/', got '\(path)'")
        }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var headers = try headers(metadata)
        if let deadline { headers.add(name: "grpc-timeout", value: GRPCTimeout.header(for: deadline - .now)) }
        let connection = try usableConnection(deadline: deadline)
        let streamID = try connection.submit(path: path, headers: headers,
                                             body: GRPCFraming.frame(request.protobufBytes()))
        var state = StreamingCallState(streamID: streamID, maxMessageSize: configuration.maxResponseMessageSize)
        var outcome: RPCClientError??
        var handlerError: (any Error)?
        while outcome == nil {
            if shouldStop() {
                connection.cancel(streamID: streamID)
                return
            }
            let wakeAt = min(deadline ?? .now + .milliseconds(200), .now + .milliseconds(200))
            do {
                _ = try connection.run(until: wakeAt) { event in
                    switch state.handle(event) {
                    case .none:
                        return false
                    case .opened:
                        onOpen()
                        return false
                    case .messages(let messages):
                        for bytes in messages where handlerError == nil {
                            do {
                                try onMessage(try Response(protobufBytes: bytes[...]))
                            } catch {
                                handlerError = error
                            }
                        }
                        return handlerError != nil
                    case .complete(let result):
                        outcome = .some(result)
                        return true
                    }
                }
            } catch {
                self.connection = nil
                throw error
            }
            if let handlerError {
                connection.cancel(streamID: streamID)
                throw handlerError
            }
            if outcome == nil, let deadline, ContinuousClock.now >= deadline {
                connection.cancel(streamID: streamID)
                throw RPCClientError(.transport, .deadlineExceeded, "the call did not end within \(timeout!)")
            }
        }
        if let failure = outcome! { throw failure }
    }
}
