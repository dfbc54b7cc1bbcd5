import ProtobufWire

/// What a server-streaming handler sends its responses through.
///
/// Two ways to send, for two situations: ``send(_:)`` never waits (a fan-out handing the same
/// change to many calls must not be held up by one slow client; past the bound that call
/// ends with RESOURCE_EXHAUSTED), ``sendWhenReady(_:)`` waits for the client to read (a
/// handler replaying a backlog at its own pace). The handler returns to end the call with OK,
/// or throws to end it with that error's status.
public struct RPCServerStream<Message: ProtobufMessage>: Sendable {
    let call: ServerStreamingCall

    /// Queues `message` now. Throws when the call has ended (the client went away, the
    /// deadline passed, ``end(with:)``) or when the client left too much unread, which ends it.
    public func send(_ message: Message) throws(RPCError) {
        try call.send(RPCResponseBody(message).framed)
    }

    /// Sends the response headers now, before any message: the call is accepted and open (a
    /// client or proxy waiting for headers knows, and keepalive PINGs start). Errors thrown
    /// after this end the call with trailers instead of a trailers-only answer.
    public func sendHeaders() throws(RPCError) {
        _ = try call.openStream()
    }

    /// ``send(_:)`` for a message already framed, so one encoding can go to many calls.
    public func send(framed body: RPCResponseBody) throws(RPCError) {
        try call.send(body.framed)
    }

    /// Waits until the client has read enough for `message` to fit, then queues it. Throws
    /// when the call ends, or RESOURCE_EXHAUSTED when the client reads nothing for the
    /// server's stall timeout.
    public func sendWhenReady(_ message: Message) async throws {
        try await call.sendWhenReady(RPCResponseBody(message).framed)
    }

    /// Ends the call with `error`'s status from outside the handler (a fan-out dropping a
    /// client, a server shutting down): the handler's task is cancelled.
    public func end(with error: RPCError) {
        call.end(with: error)
    }
}
