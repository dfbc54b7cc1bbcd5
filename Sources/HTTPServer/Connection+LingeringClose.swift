import CLinux
import Glibc

/// The end of a conversation, as HTTP servers must end it (RFC 9112 §9.6, "lingering close").
///
/// Closing a socket that still has unread bytes, or that receives bytes after it is closed,
/// makes the kernel answer with RST instead of FIN; a peer that gets the RST before it has read
/// our last bytes may drop them. That peer is often a proxy (haproxy, nginx) that sent a
/// WINDOW_UPDATE or a PING ACK just as our final GOAWAY went out: it then loses the trailers of
/// the call it was relaying and its client sees the call fail after the server completed it.
/// So the connection first shuts its sending side (FIN after everything queued), then reads
/// and drops whatever still arrives until the peer closes or ``lingerTimeout`` passes.
extension Connection {
    /// How long a closing connection waits for the peer to close its side: ample for a peer
    /// that is reading (it closes as soon as it reads our FIN), short enough that a peer that
    /// never closes holds its slot, and a server shutdown, only briefly.
    static let lingerTimeout: Duration = .seconds(2)

    /// The conversation is over and everything is sent. A connection whose last bytes went out
    /// just now (an answer with `Connection: close` or an error, or HTTP/2's final GOAWAY) lingers;
    /// an idle HTTP/1.1 or undecided connection closed by a shutdown sent nothing since its last
    /// exchange, so it closes outright and does not hold the shutdown for a peer that waits.
    func endConversation() {
        if case .http2 = mode {
            closeLingering()
        } else if closeWhenFlushed {
            closeLingering()
        } else {
            close()
        }
    }

    /// Shuts the sending side and starts dropping input until the peer's FIN or the timeout.
    /// In-flight requests, if any, are cancelled: nothing more can be sent.
    func closeLingering() {
        guard !closed, lingeringUntil == nil else { return }
        // Fails only when the peer is already gone (ENOTCONN): nothing to linger for.
        guard Glibc.shutdown(fd, Int32(SHUT_WR)) == 0 else {
            close()
            return
        }
        let deadline = ContinuousClock.now + Self.lingerTimeout
        lingeringUntil = deadline
        abandonRequests()
        output = []
        outputOffset = 0
        let wanted = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        if interest != wanted {
            interest = wanted
            loop.modify(fd: fd, events: wanted)
        }
        loop.timeouts.fileEarlier(self, at: deadline)
        discardAvailable()  // the peer may have closed already
    }

    /// Reads and drops what the peer sent; its FIN (or an error) ends the linger.
    func discardAvailable() {
        let buffer = loop.readBuffer
        while !closed {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { continue }
            if n < 0 && errno == EINTR { continue }
            if n == 0 || errno != EAGAIN { close() }
            return
        }
    }
}
