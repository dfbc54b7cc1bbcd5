import Glibc
import RPCCore
import ServiceRuntime

/// A non-blocking TCP socket driven by `poll`, for a client that makes one call at a time.
///
/// Non-blocking even though the client is synchronous: a deadline must bound connect, write
/// and read alike, and HTTP/2 may need to read (WINDOW_UPDATE) while it still has bytes to
/// write. Owned by the thread of its ``GRPCClient``.
final class ClientSocket {
    /// What `poll` reported.
    struct Readiness {
        var readable = false
        var writable = false
    }

    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Connects to the first address of `address` that accepts, giving up at `deadline`.
    static func connect(to address: ServerAddress,
                        deadline: ContinuousClock.Instant) throws(RPCClientError) -> ClientSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &result)
        guard status == 0, result != nil else {
            throw RPCClientError(.transport, .unavailable,
                                 "cannot connect to \(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var lastError: Int32 = ECONNREFUSED
        var candidate = result
        while let info = candidate {
            candidate = info.pointee.ai_next
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let fd = socket(info.pointee.ai_family, type, 0)
            guard fd >= 0 else { lastError = errno; continue }
            let socket = ClientSocket(fd: fd)
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = errno; continue }
                guard socket.wait(read: false, write: true, deadline: deadline).writable else {
                    throw RPCClientError(.transport, .deadlineExceeded,
                                         "cannot connect to \(address): no answer before the deadline")
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                guard soError == 0 else { lastError = soError; continue }
            }
            var one: Int32 = 1
            // gRPC calls are small request/response exchanges: Nagle would only add latency.
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return socket
        }
        throw RPCClientError(.transport, .unavailable,
                             "cannot connect to \(address): \(String(cString: strerror(lastError)))")
    }

    /// Waits until the socket is readable or writable (as asked) or `deadline` passes; nil
    /// waits forever. Hang-up and errors count as readable so the next read reports them.
    func wait(read: Bool, write: Bool, deadline: ContinuousClock.Instant?) -> Readiness {
        var events: Int16 = 0
        if read { events |= Int16(POLLIN) }
        if write { events |= Int16(POLLOUT) }
        while true {
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&descriptor, 1, ClientSocket.milliseconds(until: deadline))
            if rc < 0 && errno == EINTR { continue }
            guard rc > 0 else { return Readiness() }
            let failed = descriptor.revents & Int16(POLLERR | POLLHUP) != 0
            return Readiness(readable: descriptor.revents & Int16(POLLIN) != 0 || failed,
                             writable: descriptor.revents & Int16(POLLOUT) != 0 || (failed && write))
        }
    }

    /// Sends what the kernel takes now: bytes sent, 0 when it would block; throws when the
    /// connection is gone.
    func send(_ bytes: ArraySlice<UInt8>) throws(RPCClientError) -> Int {
        while true {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw RPCClientError(
                .transport, .unavailable, "connection lost while sending: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads what is available: bytes read, 0 at end of stream, nil when it would block.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(RPCClientError) -> Int? {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw RPCClientError(
                .transport, .unavailable, "connection lost while reading: \(String(cString: strerror(errno)))")
        }
    }

    /// Milliseconds for `poll`, rounded up so a deadline 0.4 ms away is not a busy loop.
    static func milliseconds(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return 0 }
        return Int32(clamping: remaining.inMillisecondsRoundedUp)
    }
}

@available(*, unavailable)
extension ClientSocket: Sendable {}
