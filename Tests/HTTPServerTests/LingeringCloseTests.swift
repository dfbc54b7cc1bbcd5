import Glibc
import HTTPCore
@testable import HTTPServer
import Testing
import TestSupport

/// A connection the server ends (here: HTTP/1.1 `Connection: close`) ends with FIN and a
/// lingering read (``Connection/closeLingering()``), never with RST: a peer still writing when
/// the answer goes out must be able to read that answer, which an RST lets its kernel drop.
@Suite(.serialized)
struct LingeringCloseTests {
    struct Answering: HTTPService {
        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
            writer.respond(.text(200, "ok\n"))
        }
    }

    /// A started server on a free loopback port and a client socket connected to it.
    static func withServerAndClient(_ body: (HTTPServer, Int32) throws -> Void) throws {
        let server = try HTTPServer(configuration: ServerConfiguration(port: 0), service: Answering())
        server.start()
        defer { server.shutdownBlocking(gracePeriod: .milliseconds(200)) }
        let port = UInt16(server.boundAddress.split(separator: ":").last!)!
        let fd = try #require(connect(port: port))
        defer { close(fd) }
        try body(server, fd)
    }

    /// A client socket connected to loopback `port`, its reads failing after 10 s instead of
    /// hanging; nil when the connect failed.
    static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything up to the server's FIN; nil when the read failed (a reset) or timed out.
    static func readToEnd(_ fd: Int32) -> String? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return String(decoding: received, as: UTF8.self) }
            if n < 0 { return errno == EINTR ? readToEnd(fd) : nil }
            received += buffer[..<n]
        }
    }

    @Test func bytesThePeerSendsAfterTheAnswerMeetALingeringReadNotAReset() throws {
        try Self.withServerAndClient { server, fd in
            #expect(Self.send(fd, "GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
            let answer = try #require(Self.readToEnd(fd))
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            #expect(answer.hasSuffix("ok\n"))
            // The peer writes after the server's FIN (as a proxy's WINDOW_UPDATE or PING ACK may).
            // A socket the server had closed outright answers with RST, and the next read fails
            // with ECONNRESET; a lingering one reads and drops the bytes, and the read sees EOF.
            #expect(Self.send(fd, "late bytes the server no longer reads"))
            usleep(200_000)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            #expect(error == 0, "the server reset the connection: errno \(error)")
            #expect(Self.readToEnd(fd) == "")
            // The connection is held while it lingers and let go once the peer closes.
            #expect(server.openConnections == 1)
            shutdown(fd, Int32(SHUT_WR))
            try eventuallyBlocking("every connection closed") { server.openConnections == 0 }
        }
    }

    @Test func aPeerThatNeverClosesIsLetGoAfterTheLingerTimeout() throws {
        try Self.withServerAndClient { server, fd in
            #expect(Self.send(fd, "GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
            #expect(Self.readToEnd(fd)?.hasSuffix("ok\n") == true)
            try eventuallyBlocking("every connection closed") { server.openConnections == 0 }
            // The server closed its socket for good: now its kernel answers with RST.
            #expect(Self.send(fd, "after the linger"))
            usleep(200_000)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            // Linux reports a reset that arrives after the peer's FIN (CLOSE_WAIT) as EPIPE.
            #expect(error == EPIPE || error == ECONNRESET, "errno \(error)")
        }
    }
}
