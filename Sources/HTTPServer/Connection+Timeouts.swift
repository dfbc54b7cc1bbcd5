import HTTP1
import HTTP2
import HTTPCore

/// Shutdown and timeouts: what the event loop asks of a connection besides its I/O.
extension Connection {
    /// Starts this connection's part of a server shutdown: HTTP/2 gets the two-step GOAWAY
    /// (``HTTP2ServerSession/beginDrain(now:)``), HTTP/1.1 answers its current request with
    /// `Connection: close`.
    func beginGracefulClose() {
        closingGracefully = true
        switch mode {
        case .http2(let session): session.beginDrain()
        case .http1(let exchange): exchange.keepAlive = false
        case .detecting: break
        }
        loop.timeouts.fileForNextTick(self)  // the drain deadline is watched from the next check on
        loop.markDirty(self)
    }

    /// What a connection's timeouts call for at one instant: the one description of each mode's
    /// rules, read both by ``checkTimeouts(now:)`` (which does what is ``due``) and by the timeout
    /// wheel (which files the connection at ``next``), so the two cannot drift apart.
    struct TimeoutCheck {
        struct Actions: OptionSet {
            let rawValue: UInt8
            /// Close at once: a silent connection that never told its protocol, an idle one, or
            /// one whose lingering close (``closeLingering()``) has run out of time.
            static let close = Actions(rawValue: 1 << 0)
            /// A request head that did not arrive in time: 408, then close.
            static let answerRequestTimeout = Actions(rawValue: 1 << 1)
            /// An idle HTTP/2 connection: the final GOAWAY, then close.
            static let sendIdleGoAway = Actions(rawValue: 1 << 2)
            /// A drain under way: its own deadlines (``HTTP2ServerSession/checkDrainDeadline(now:)``).
            static let checkDrain = Actions(rawValue: 1 << 3)
            /// Streamed responses open: their keepalive (``keepStreamsAlive(_:now:)``).
            static let keepStreamsAlive = Actions(rawValue: 1 << 4)
        }

        var due: Actions = []
        /// When the check can next have something to do, if nothing else happens.
        var next: ContinuousClock.Instant
    }

    /// Each mode's timeouts at `now`: what is due and when to look again.
    ///
    /// Only deadlines that activity pushes later are left to wait (the preface, a request head,
    /// idleness): a check that comes early just files the connection again. State that needs
    /// watching (a request or stream in flight, streamed responses' keepalive, a drain) is
    /// checked at every tick (`next` is `now`); and whatever brings a deadline closer files the
    /// connection earlier where it happens (``protocolChosen()``, ``requestHeadStarted(_:)``,
    /// ``beginGracefulClose()``, ``startStream(streamID:status:headers:)``).
    func timeoutCheck(now: ContinuousClock.Instant) -> TimeoutCheck {
        let headerReadTimeout = configuration.headerReadTimeout
        let idleTimeout = configuration.idleTimeout
        if let deadline = lingeringUntil {
            // A lingering close (``closeLingering()``): the peer had its time to close.
            var check = TimeoutCheck(next: deadline)
            if now >= deadline { check.due = .close }
            return check
        }
        switch mode {
        case .detecting(let detection):
            var check = TimeoutCheck(next: openedAt + headerReadTimeout)
            if now - openedAt > headerReadTimeout {
                check.due = detection.isPartialHTTP1Request ? .answerRequestTimeout : .close
            }
            return check
        case .http1(let exchange):
            if let started = exchange.requestStartedAt {
                var check = TimeoutCheck(next: started + headerReadTimeout)
                if now - started > headerReadTimeout { check.due = .answerRequestTimeout }
                return check
            }
            if exchange.inFlight || exchange.parser.isMidRequest { return TimeoutCheck(next: now) }
            var check = TimeoutCheck(next: lastActivity + idleTimeout)
            if now - lastActivity > idleTimeout { check.due = .close }
            return check
        case .http2(let session):
            var check = TimeoutCheck(next: lastActivity + idleTimeout)
            if closingGracefully && !session.goAwaySent {
                check.due.insert(.checkDrain)
                check.next = now
            }
            if session.openStreamedResponses > 0 {
                check.due.insert(.keepStreamsAlive)
                check.next = now
            } else if !pending.isEmpty || session.openStreamCount > 0 {
                check.next = now
            } else if now - lastActivity > idleTimeout {
                check.due.insert(.sendIdleGoAway)
            }
            return check
        }
    }

    /// Slowloris and idle defence, run by the loop when this connection's check comes due in its
    /// ``TimeoutWheel``: does what ``timeoutCheck(now:)`` finds due and returns when to look again.
    func checkTimeouts(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        let check = timeoutCheck(now: now)
        if check.due.contains(.answerRequestTimeout) { answerRequestTimeout() }
        if check.due.contains(.close) { close() }
        if case .http2(let session) = mode {
            if check.due.contains(.checkDrain) {
                session.checkDrainDeadline(now: now)
                loop.markDirty(self)
            }
            if check.due.contains(.keepStreamsAlive) { keepStreamsAlive(session, now: now) }
            if check.due.contains(.sendIdleGoAway) {
                session.sendGoAway()
                closeWhenFlushed = true
                loop.markDirty(self)
            }
        }
        return check.next
    }

    /// The first bytes told the protocol: its own timeouts replace the preface's, and an idle
    /// timeout shorter than `headerReadTimeout` is sooner than where the connection was filed.
    func protocolChosen() {
        guard !closed else { return }
        loop.timeouts.fileEarlier(self, at: timeoutCheck(now: lastActivity).next)
    }

    /// An HTTP/1.1 request head began to arrive: it has `headerReadTimeout` to finish, which on a
    /// keep-alive connection filed for its idle timeout is sooner.
    func requestHeadStarted(_ exchange: HTTP1Exchange) {
        let now = ContinuousClock.now
        exchange.requestStartedAt = now
        loop.timeouts.fileEarlier(self, at: now + configuration.headerReadTimeout)
    }

    /// A request head that did not arrive within `headerReadTimeout`: 408, then close.
    private func answerRequestTimeout() {
        HTTP1ResponseSerializer.serialize(
            .text(408, "request not received in time\n"), keepAlive: false, into: &output)
        closeWhenFlushed = true
        loop.markDirty(self)
    }
}
