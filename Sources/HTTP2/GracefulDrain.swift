/// The two-step graceful close of RFC 9113 §6.8 for one server connection, as a value that
/// says what to send next.
///
/// A single GOAWAY carrying the last processed stream id races the client: a request it (or a
/// proxy in front of us) already put on the wire is then neither processed nor, by every
/// client, retried. So the close starts with a shutdown notice (GOAWAY with stream id 2^31-1,
/// which refuses nothing) followed by a PING written after it. The client sends the PING's ACK after it has
/// read the notice, and TCP keeps order, so every stream it opened before it knew arrives
/// before that ACK: then the final GOAWAY with the last processed stream id refuses only
/// streams opened after the client was told. A client that never answers the PING (stuck,
/// not reading) gets the final GOAWAY once `acknowledgementTimeout` has passed, so it cannot
/// hold the close open; the server's grace period bounds the rest.
public struct GracefulDrain: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Streams are accepted as usual.
        case serving
        /// The notice is queued; the PING follows once the notice is written, never before it
        /// (nghttp2 sends PINGs ahead of GOAWAYs, and an ACK of a PING that overtook the notice
        /// would prove nothing). Streams are still accepted until `deadline`.
        case noticeQueued(deadline: ContinuousClock.Instant)
        /// The notice and the PING are out; streams are still accepted until `deadline`.
        case awaitingAcknowledgement(deadline: ContinuousClock.Instant)
        /// The final GOAWAY is out: streams above its last stream id are refused.
        case finalSent
    }

    public enum Action: Equatable, Sendable {
        case none
        /// Queue the shutdown notice (GOAWAY 2^31-1).
        case sendNotice
        /// Send the PING whose ACK ends the notice phase.
        case sendPing
        /// Send the GOAWAY with the last processed stream id.
        case sendFinalGoAway
    }

    /// How long the notice phase waits for the PING's ACK before closing anyway: far above a
    /// round trip to a client or proxy in the same region, short enough that a client that
    /// does not read cannot hold a shutdown.
    public static let acknowledgementTimeout: Duration = .seconds(1)

    public private(set) var phase: Phase = .serving

    public init() {}

    /// The server starts shutting down: tell the client, keep serving for a round trip.
    public mutating func begin(now: ContinuousClock.Instant) -> Action {
        guard phase == .serving else { return .none }
        phase = .noticeQueued(deadline: now + Self.acknowledgementTimeout)
        return .sendNotice
    }

    /// The notice has been written out: now the PING may follow it.
    public mutating func noticeWritten() -> Action {
        guard case .noticeQueued(let deadline) = phase else { return .none }
        phase = .awaitingAcknowledgement(deadline: deadline)
        return .sendPing
    }

    /// The client acknowledged the PING sent after the notice: it has read the notice.
    public mutating func pingAcknowledged() -> Action {
        guard case .awaitingAcknowledgement = phase else { return .none }
        phase = .finalSent
        return .sendFinalGoAway
    }

    /// Called from time to time: a client that did not answer in time gets the final GOAWAY.
    public mutating func tick(now: ContinuousClock.Instant) -> Action {
        switch phase {
        case .noticeQueued(let deadline), .awaitingAcknowledgement(let deadline):
            guard now >= deadline else { return .none }
            phase = .finalSent
            return .sendFinalGoAway
        case .serving, .finalSent:
            return .none
        }
    }

    /// Close without the notice round trip (an idle connection timing out, or one already
    /// past the notice): the final GOAWAY now, unless it is already out.
    public mutating func closeNow() -> Action {
        guard phase != .finalSent else { return .none }
        phase = .finalSent
        return .sendFinalGoAway
    }
}
