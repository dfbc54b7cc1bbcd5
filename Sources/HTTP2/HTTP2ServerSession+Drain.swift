internal import CNGHTTP2

/// The graceful close (``GracefulDrain``) carried out on the nghttp2 session.
extension HTTP2ServerSession {
    /// The opaque data of the PING sent with the shutdown notice, so its ACK is told apart from
    /// the keepalive PINGs' (all zeros).
    static let drainPingData: [UInt8] = Array("drain/ok".utf8)

    /// Starts a graceful close (RFC 9113 §6.8): the shutdown notice and a PING now, the final
    /// GOAWAY when the PING is acknowledged (or ``GracefulDrain/acknowledgementTimeout`` has
    /// passed, see ``checkDrainDeadline(now:)``). Streams begun before the final GOAWAY finish.
    public func beginDrain(now: ContinuousClock.Instant = .now) {
        perform(drain.begin(now: now))
    }

    /// Sends the final GOAWAY if the client left the drain PING unanswered for too long.
    public func checkDrainDeadline(now: ContinuousClock.Instant) {
        perform(drain.tick(now: now))
    }

    /// Closes gracefully at once: the final GOAWAY with the last processed stream id; streams
    /// already begun may finish, later ones are refused. For a connection with nothing in
    /// flight (idle timeout), where no request can be racing it.
    public func sendGoAway() {
        perform(drain.closeNow())
    }

    /// True once the final GOAWAY was submitted (the notice alone does not count).
    public var goAwaySent: Bool { drain.phase == .finalSent }

    /// Called by ``send(into:)`` after nghttp2 wrote everything it had: once the notice is out,
    /// the drain PING goes after it.
    func sendDrainPingAfterNotice(into buffer: inout [UInt8]) throws {
        perform(drain.noticeWritten())
        try SessionIO.send(session, into: &buffer)
    }

    /// Called from the PING callback: an ACK of our drain PING ends the notice phase.
    func receivedPingAcknowledgement(_ opaqueData: UnsafeRawBufferPointer) {
        guard opaqueData.elementsEqual(Self.drainPingData) else { return }
        perform(drain.pingAcknowledged())
    }

    private func perform(_ action: GracefulDrain.Action) {
        switch action {
        case .none:
            break
        case .sendNotice:
            nghttp2_submit_shutdown_notice(session)
        case .sendPing:
            Self.drainPingData.withUnsafeBufferPointer {
                _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), $0.baseAddress)
            }
        case .sendFinalGoAway:
            // Submitting from a frame callback is allowed; nghttp2 sends it after mem_recv.
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue),
                                  nghttp2_session_get_last_proc_stream_id(session),
                                  NGHTTP2_NO_ERROR.rawValue, nil, 0)
        }
    }
}
