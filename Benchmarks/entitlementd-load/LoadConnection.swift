import Glibc
import HTTP2
import HTTPCore

/// One h2c connection of the load: a non-blocking socket and a client HTTP/2 session that
/// keeps up to `streams` requests in flight. Owned by the load's single thread.
final class LoadConnection {
    let fd: Int32
    let session: HTTP2ClientSession
    /// Bytes nghttp2 produced that the kernel has not taken yet.
    private var output: [UInt8] = []
    private var outputSent = 0
    /// A stream in flight: when it started (ns, monotonic) and whether its answer so far is
    /// good (200, DATA, then grpc-status 0). One table, so an event costs one lookup.
    private struct Pending {
        var startedAt: UInt64
        var statusOK = true
        var dataBytes = 0
        var grpcOK = false
    }
    private var pending: [Int32: Pending] = [:]
    private(set) var isClosed = false

    var inFlight: Int { pending.count }
    var wantsWrite: Bool { outputSent < output.count }

    /// Opens a connection to the IPv4 `host:port` (the benchmarks target loopback).
    init(host: String, port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoadError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw LoadError("\(host) is not an IPv4 address")
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LoadError("connect \(host):\(port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // Blocking connect (fast on loopback), then non-blocking for the load.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.fd = fd
        session = try HTTP2ClientSession()
    }

    deinit { if !isClosed { close(fd) } }

    func submit(body: [UInt8], head: HTTP2RequestHead, now: UInt64) throws {
        let id = try session.submitRequest(head, body: body)
        pending[id] = Pending(startedAt: now)
    }

    /// Moves nghttp2's pending frames into the output buffer and writes what the kernel takes.
    func flush() throws {
        if outputSent == output.count {
            output.removeAll(keepingCapacity: true)
            outputSent = 0
        }
        try session.send(into: &output)
        while outputSent < output.count {
            let n = output.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + outputSent, bytes.count - outputSent, Int32(MSG_NOSIGNAL))
            }
            if n > 0 { outputSent += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            throw LoadError("send: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads what arrived and reports each finished request: its start time and whether it
    /// was answered well.
    func readAvailable(buffer: UnsafeMutableRawBufferPointer,
                       finished: (_ startedAt: UInt64, _ ok: Bool) -> Void) throws {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n == 0 { throw LoadError("the server closed the connection") }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                throw LoadError("recv: \(String(cString: strerror(errno)))")
            }
            try session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            for event in session.takeEvents() {
                switch event {
                case let .response(id, status, _, _):
                    if status != 200 { pending[id]?.statusOK = false }
                case let .data(id, bytes):
                    pending[id]?.dataBytes += bytes.count
                case let .trailers(id, trailers):
                    if trailers["grpc-status"] == "0" { pending[id]?.grpcOK = true }
                case let .streamClosed(id, errorCode):
                    guard let stream = pending.removeValue(forKey: id) else { continue }
                    // An empty gRPC message is still a 5-byte frame; an error answer has none.
                    finished(stream.startedAt,
                             errorCode == 0 && stream.statusOK && stream.grpcOK && stream.dataBytes >= 5)
                case .goAway:
                    throw LoadError("the server sent GOAWAY")
                }
            }
            if n < buffer.count { return }
        }
    }

    func shutdown() {
        guard !isClosed else { return }
        isClosed = true
        session.sendGoAway()
        try? flush()
        close(fd)
    }
}

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
