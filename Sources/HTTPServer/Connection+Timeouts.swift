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
        loop.markDirty(self)
    }

    /// Slowloris and idle defence, run by the loop about twice a second.
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

    /// A request head that did not arrive within `headerReadTimeout`: 408, then close.
    private func answerRequestTimeout() {
        HTTP1ResponseSerializer.serialize(
            .text(408, "request not received in time\n"), keepAlive: false, into: &output)
        closeWhenFlushed = true
        loop.markDirty(self)
    }
}
