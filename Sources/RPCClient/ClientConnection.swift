import HTTP2
import HTTPCore
import RPCCore

/// One h2c connection: a ``ClientSocket`` driving an ``HTTP2ClientSession``.
///
/// The I/O shell around the session: it writes what the session queues, feeds it what the
/// socket reads and hands the events to a caller-supplied handler, all on the owner's thread.
final class ClientConnection {
    let address: ServerAddress
    private let socket: ClientSocket
    private let session: HTTP2ClientSession
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// Allocated once per connection; the session copies what it keeps.
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// Set once the socket failed, reached end of stream or was closed here: no more calls.
    private(set) var isBroken = false

    init(address: ServerAddress, configuration: HTTP2ClientSession.Configuration,
         deadline: ContinuousClock.Instant) throws(RPCClientError) {
        self.address = address
        socket = try ClientSocket.connect(to: address, deadline: deadline)
        do {
            session = try HTTP2ClientSession(configuration: configuration)
        } catch {
            throw RPCClientError(.transport, .internal, "cannot start an HTTP/2 session: \(error)")
        }
        // Last, so a failed connect has nothing to free (deinit does not run for it).
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    }

    deinit { readBuffer.deallocate() }

    /// True while new calls may use this connection.
    var isUsable: Bool { !isBroken && session.canSubmitRequests && session.isActive }

    func submit(path: String, headers: HTTPHeaders, body: [UInt8]) throws(RPCClientError) -> Int32 {
        do {
            return try session.submitRequest(method: "POST", authority: address.description, path: path,
                                             headers: headers, body: body)
        } catch {
            throw RPCClientError(.invalidCall, .internal, "cannot send the request: \(error)")
        }
    }

    func cancel(streamID: Int32) {
        session.cancel(streamID: streamID)
        // Best effort: the RST_STREAM goes out now if the socket takes it, or with the next call.
        try? flush()
    }

    /// Reads and writes until `handle` reports the call decided or `deadline` passes.
    ///
    /// Returns false at the deadline; throws when the connection broke (and marks it broken).
    func run(until deadline: ContinuousClock.Instant?,
             _ handle: (HTTP2ClientEvent) -> Bool) throws(RPCClientError) -> Bool {
        do {
            while true {
                try flush()
                let readiness = socket.wait(read: true, write: outputOffset < output.count, deadline: deadline)
                if !readiness.readable && !readiness.writable {
                    if let deadline, ContinuousClock.now >= deadline { return false }
                    continue
                }
                if readiness.readable, try readAvailable(handle) { return true }
            }
        } catch {
            isBroken = true
            throw error
        }
    }

    /// Processes whatever already arrived (a GOAWAY, an idle close) without waiting, so a
    /// stale connection is noticed before a call is sent on it.
    func refresh() {
        do {
            while !isBroken, socket.wait(read: true, write: false, deadline: .now).readable {
                _ = try readAvailable { _ in false }
            }
        } catch {
            isBroken = true
        }
    }

    /// Sends GOAWAY if the socket takes it; the socket closes when this object goes away.
    func close() {
        guard !isBroken else { return }
        session.sendGoAway()
        try? flush()
        isBroken = true
    }

    /// One read: feeds the session, then the handler. True when the handler is done.
    private func readAvailable(_ handle: (HTTP2ClientEvent) -> Bool) throws(RPCClientError) -> Bool {
        guard let count = try socket.receive(into: readBuffer) else { return false }
        guard count > 0 else {
            isBroken = true
            throw RPCClientError(.transport, .unavailable, "the server closed the connection before the call finished")
        }
        do {
            try session.receive(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
        } catch {
            try? flush()
            throw RPCClientError(.transport, .internal, "the server broke the HTTP/2 protocol: \(error)")
        }
        var finished = false
        for event in session.takeEvents() where !finished {
            finished = handle(event)
        }
        return finished
    }

    /// Moves the session's pending frames to the socket as far as it takes them now.
    private func flush() throws(RPCClientError) {
        do {
            try session.send(into: &output)
        } catch {
            throw RPCClientError(.transport, .internal, "HTTP/2 session failed: \(error)")
        }
        while outputOffset < output.count {
            let sent = try socket.send(output[outputOffset...])
            if sent == 0 { return }
            outputOffset += sent
        }
        output.removeAll(keepingCapacity: true)
        outputOffset = 0
    }
}

@available(*, unavailable)
extension ClientConnection: Sendable {}
