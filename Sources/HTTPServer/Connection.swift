import CLinux
import Glibc
import HTTP1
import HTTP2
import HTTPCore

/// One accepted TCP connection: sniffs HTTP/2 prior knowledge or HTTP/1.1 from its first
/// bytes, feeds the matching protocol engine, dispatches whole requests to the service and
/// writes what comes back. Owned by its loop's thread.
final class Connection: TimeoutWheelMember {
    enum Mode {
        /// Not enough bytes yet to tell the HTTP/2 preface from an HTTP/1.1 request line.
        case detecting(ProtocolDetection)
        case http2(HTTP2ServerSession)
        case http1(HTTP1Exchange)
    }

    let fd: Int32
    unowned let loop: EventLoop
    var mode: Mode
    var output: [UInt8] = []
    var outputOffset = 0
    /// The epoll interest currently registered for the socket.
    var interest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    /// Past this many unsent bytes the connection stops reading requests (and stops pulling
    /// more frames out of nghttp2) until the peer reads: a client that sends but never reads
    /// cannot make the server buffer answers without bound.
    static let maxPendingOutput = 1 << 20
    /// Waiting in the loop's dirty list; cleared when flushed sooner, so the list skips it.
    var isDirty = false
    private(set) var closed = false
    var closeWhenFlushed = false
    var closingGracefully = false
    /// Set once the conversation is over and our side is shut down for writing
    /// (``closeLingering()``): until then, or until the peer closes, its bytes are read and dropped.
    var lingeringUntil: ContinuousClock.Instant?
    /// Requests handed to the service and not yet answered, by stream (0 for HTTP/1.1).
    var pending = StreamTable<StreamResponseWriter>()
    /// Storage handed back and forth with the HTTP/2 session for each read's events
    /// (``HTTP2ServerSession/takeEvents(into:)``), so reads allocate no event buffers.
    private var http2Events: [HTTP2Event] = []
    let openedAt = ContinuousClock.now
    var lastActivity = ContinuousClock.now
    /// When the last keepalive PING went out (``keepStreamsAlive(_:now:)``).
    var lastPing = ContinuousClock.now
    /// This connection's place in its loop's ``TimeoutWheel``.
    var timeoutTick = -1
    var timeoutIndex = 0

    init(fd: Int32, loop: EventLoop) {
        self.fd = fd
        self.loop = loop
        mode = .detecting(ProtocolDetection(maxRequestHeadBytes: loop.server.configuration.http1.maxHeaderBytes))
    }

    var configuration: ServerConfiguration { loop.server.configuration }

    func handleEvents(_ flags: UInt32) {
        if lingeringUntil != nil {
            discardAvailable()
            return
        }
        if flags & EPOLLOUT.rawValue != 0 { loop.markDirty(self) }
        if flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 && interest & EPOLLIN.rawValue == 0 {
            close()
            return
        }
        if flags & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            readAvailable()
        }
    }

    private func readAvailable() {
        let buffer = loop.readBuffer
        while !closed {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 {
                lastActivity = ContinuousClock.now
                process(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                if n < buffer.count { break }
            } else if n == 0 {
                close()
                return
            } else {
                if errno != EAGAIN && errno != EINTR { close() }
                if errno != EINTR { break }
            }
        }
        // Answered and flushed now, while this connection's session, streams and buffers are
        // still in cache, rather than with every other connection after the whole wake: at 64
        // connections that made each connection's memory cold by its turn to send.
        if !closed {
            isDirty = false
            flush()
        }
    }

    private func process(_ bytes: UnsafeRawBufferPointer) {
        switch mode {
        case .detecting(var detection):
            switch detection.append(bytes) {
            case .needMore:
                mode = .detecting(detection)
            case .http2:
                startHTTP2(with: detection.bytes)
                protocolChosen()
            case .http1:
                let exchange = HTTP1Exchange(limits: configuration.http1)
                mode = .http1(exchange)
                exchange.input = detection.bytes
                parseHTTP1(exchange)
                protocolChosen()
            case .neither:
                // Not HTTP at all: an answer in HTTP/1.1 would be one more protocol the peer
                // does not speak.
                close()
            }
        case .http2(let session):
            receiveHTTP2(session, bytes)
        case .http1(let exchange):
            exchange.input.append(contentsOf: bytes)
            parseHTTP1(exchange)
        }
    }

    private func startHTTP2(with bytes: [UInt8]) {
        do {
            let session = try HTTP2ServerSession(limits: configuration.http2)
            mode = .http2(session)
            if closingGracefully { session.beginDrain() }
            bytes.withUnsafeBytes { receiveHTTP2(session, $0) }
        } catch {
            close()
        }
    }

    private func receiveHTTP2(_ session: HTTP2ServerSession, _ bytes: UnsafeRawBufferPointer) {
        do {
            try session.receive(bytes)
        } catch {
            // nghttp2 has queued a GOAWAY for most protocol errors: send it, then close.
            closeWhenFlushed = true
        }
        // Owned here while dispatching (a nested read would start from an empty buffer).
        var events: [HTTP2Event] = []
        swap(&events, &http2Events)
        session.takeEvents(into: &events)
        // Each event is swapped out for a payload-free placeholder rather than copied by a
        // for-in: the copy retained every string and buffer of the request and the clearing
        // afterwards released them again (~500 instructions a request).
        for index in events.indices {
            var event = HTTP2Event.streamClosed(streamID: 0)
            swap(&event, &events[index])
            switch consume event {
            case .request(let streamID, let request):
                dispatch(request, streamID: streamID)
            case .streamClosed(let streamID):
                takePending(streamID)?.cancel()
            }
        }
        events.removeAll(keepingCapacity: true)
        swap(&events, &http2Events)
    }

    func parseHTTP1(_ exchange: HTTP1Exchange) {
        while !closed && !exchange.inFlight && !closeWhenFlushed && !exchange.input.isEmpty {
            let wasMidRequest = exchange.parser.isMidRequest
            let outcome = exchange.input.withUnsafeBytes { exchange.parser.parse($0) }
            switch outcome {
            case .needMore:
                exchange.input.removeAll(keepingCapacity: true)
                if !wasMidRequest && exchange.parser.isMidRequest { requestHeadStarted(exchange) }
            case .request(let request, let keepAlive, let consumed):
                exchange.input.removeFirst(consumed)
                exchange.inFlight = true
                exchange.keepAlive = keepAlive && !closingGracefully
                exchange.requestStartedAt = nil
                dispatch(request, streamID: 0)
            case .failure(let status, let reason):
                exchange.input.removeAll()
                HTTP1ResponseSerializer.serialize(.text(status, reason + "\n"), keepAlive: false, into: &output)
                closeWhenFlushed = true
            }
        }
    }

    private func dispatch(_ request: HTTPRequest, streamID: Int32) {
        let writer = StreamResponseWriter(loop: loop, connection: self, streamID: streamID)
        pending[streamID] = writer
        loop.server.activeRequests.wrappingAdd(1, ordering: .relaxed)
        loop.server.service.handle(request, writer: writer)
    }

    /// Removes a request from the in-flight set, keeping the server-wide count in step.
    func takePending(_ streamID: Int32) -> StreamResponseWriter? {
        guard let writer = pending.removeValue(forKey: streamID) else { return nil }
        loop.server.activeRequests.wrappingSubtract(1, ordering: .relaxed)
        return writer
    }

    /// Applies a service's answer; called on the loop thread, directly or via `execute`.
    func deliver(streamID: Int32, response: HTTPResponse) {
        guard !closed, takePending(streamID) != nil else { return }
        switch mode {
        case .http2(let session):
            session.submit(streamID: streamID, response: response)
        case .http1(let exchange):
            exchange.inFlight = false
            HTTP1ResponseSerializer.serialize(response, keepAlive: exchange.keepAlive, into: &output)
            if exchange.keepAlive {
                parseHTTP1(exchange)
            } else {
                closeWhenFlushed = true
            }
        case .detecting:
            break
        }
        loop.markDirty(self)
    }

    /// Drains protocol output into the socket; closes when the conversation is over.
    func flush() {
        guard !closed, lingeringUntil == nil else { return }
        if case .http2(let session) = mode, output.count - outputOffset < Connection.maxPendingOutput {
            do { try session.send(into: &output) } catch { closeWhenFlushed = true }
            for (streamID, count) in session.takeDrained() { pending[streamID]?.drained(count) }
        }
        while outputOffset < output.count {
            let n = output.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + outputOffset, bytes.count - outputOffset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                outputOffset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == EAGAIN {
                break
            } else {
                close()
                return
            }
        }
        if outputOffset == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 256 * 1024)
            outputOffset = 0
        } else if outputOffset >= 64 * 1024 {
            // A peer that reads slowly but steadily never lets the buffer empty: drop what
            // was sent so the buffer holds only unsent bytes.
            output.removeFirst(outputOffset)
            outputOffset = 0
        }
        let pending = output.count - outputOffset
        let blocked = pending > 0
        let backlogged = pending >= Connection.maxPendingOutput
        let wanted = EPOLLRDHUP.rawValue | (backlogged ? 0 : EPOLLIN.rawValue) | (blocked ? EPOLLOUT.rawValue : 0)
        if wanted != interest {
            interest = wanted
            loop.modify(fd: fd, events: wanted)
        }
        if !blocked && conversationOver { endConversation() }
    }

    private var conversationOver: Bool {
        if closeWhenFlushed { return true }
        switch mode {
        case .http2(let session):
            if !session.isActive { return true }
            // Only after the final GOAWAY: until then a stream the client sent before it read
            // the shutdown notice may still arrive and must be served.
            return closingGracefully && session.goAwaySent && pending.isEmpty && session.openStreamCount == 0
        case .http1(let exchange):
            return closingGracefully && !exchange.inFlight
        case .detecting:
            return closingGracefully
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        loop.unregister(fd: fd)
        Glibc.close(fd)
        abandonRequests()
        loop.removed(self)
    }

    /// Cancels what is still in flight and lets go of the protocol state: nothing more will be
    /// written for this connection.
    func abandonRequests() {
        let abandoned = pending.values
        loop.server.activeRequests.wrappingSubtract(abandoned.count, ordering: .relaxed)
        pending.removeAll()
        for writer in abandoned { writer.cancel() }
        mode = .detecting(ProtocolDetection(maxRequestHeadBytes: 0))
    }
}

/// HTTP/1.1 state of a connection: one request at a time, answered in order.
final class HTTP1Exchange {
    let parser: HTTP1RequestParser
    var input: [UInt8] = []
    var inFlight = false
    var keepAlive = true
    var requestStartedAt: ContinuousClock.Instant?

    init(limits: HTTP1RequestParser.Limits) {
        parser = HTTP1RequestParser(limits: limits)
    }
}
