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

    /// Slowloris and idle defence, run by the loop when this connection's check comes due in its
    /// ``TimeoutWheel`` (``nextTimeoutCheck(now:)``).
    func checkTimeouts(now: ContinuousClock.Instant) {
        switch mode {
        case .detecting(let detection):
            guard now - openedAt > configuration.headerReadTimeout else { break }
            if detection.isPartialHTTP1Request {
                answerRequestTimeout()
            } else {
                close()
            }
        case .http1(let exchange):
            if let started = exchange.requestStartedAt, now - started > configuration.headerReadTimeout {
                answerRequestTimeout()
            } else if !exchange.inFlight && !exchange.parser.isMidRequest
                && now - lastActivity > configuration.idleTimeout
            {
                close()
            }
        case .http2(let session):
            if closingGracefully && !session.goAwaySent {
                session.checkDrainDeadline(now: now)
                loop.markDirty(self)
            }
            if session.openStreamedResponses > 0 {
                keepStreamsAlive(session, now: now)
            } else if pending.isEmpty && session.openStreamCount == 0
                && now - lastActivity > configuration.idleTimeout
            {
                session.sendGoAway()
                closeWhenFlushed = true
                loop.markDirty(self)
            }
        }
    }

    /// When ``checkTimeouts(now:)`` can next have something to do, if nothing else happens.
    ///
    /// Only deadlines that activity pushes later are left to wait (the preface, a request head,
    /// idleness): a check that comes early just files the connection again. State that needs
    /// watching (a request or stream in flight, streamed responses' keepalive, a drain) is
    /// checked at every tick, as every connection used to be; and whatever brings a deadline
    /// closer files the connection earlier where it happens (``protocolChosen()``,
    /// ``requestHeadStarted(_:)``, ``beginGracefulClose()``, ``startStream(streamID:status:headers:)``).
    func nextTimeoutCheck(now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        switch mode {
        case .detecting:
            return openedAt + configuration.headerReadTimeout
        case .http1(let exchange):
            if let started = exchange.requestStartedAt { return started + configuration.headerReadTimeout }
            if exchange.inFlight || exchange.parser.isMidRequest { return now }
            return lastActivity + configuration.idleTimeout
        case .http2(let session):
            if closingGracefully && !session.goAwaySent || session.openStreamedResponses > 0
                || !pending.isEmpty || session.openStreamCount > 0
            {
                return now
            }
            return lastActivity + configuration.idleTimeout
        }
    }

    /// The first bytes told the protocol: its own timeouts replace the preface's, and an idle
    /// timeout shorter than `headerReadTimeout` is sooner than where the connection was filed.
    func protocolChosen() {
        guard !closed else { return }
        loop.timeouts.fileEarlier(self, at: nextTimeoutCheck(now: lastActivity))
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
