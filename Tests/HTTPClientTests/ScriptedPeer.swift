import Foundation
import Glibc
import Synchronization

/// A loopback HTTP/1.1 server on raw sockets whose every answer the test scripts: real bytes on
/// a real connection, so the client's keep-alive, timeouts and error mapping meet a true peer.
///
/// One thread per accepted connection; each request (head plus Content-Length body) goes to
/// `respond`, whose ``Action`` says what the peer does.
final class ScriptedPeer: Sendable {
    enum Action: Sendable {
        /// Writes these bytes as they are and waits for the next request.
        case reply([UInt8])
        /// Writes these bytes, then closes the connection (a keep-alive peer's idle timeout).
        case replyThenClose([UInt8])
        /// Closes the connection without a word.
        case close
        /// Never answers; keeps reading until the client gives up.
        case stall
    }

    struct Request: Sendable {
        var head: String
        var body: [UInt8]
        /// Which accepted connection carried it (1 = the first).
        var connection: Int
    }

    let port: UInt16
    private let listener: Int32
    private let state = Mutex<(accepted: Int, requests: [Request], closed: Bool)>((0, [], false))
    private let respond: @Sendable (Request) -> Action
    private let greeting: [UInt8]?

    /// With a `greeting`, each connection gets those bytes at once and is closed once the client
    /// leaves (a plain-text server where a TLS client expects a ServerHello).
    init(greeting: [UInt8]? = nil, respond: @escaping @Sendable (Request) -> Action) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        self.respond = respond
        self.greeting = greeting
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// An HTTP/1.1 response with `body` and keep-alive.
    static func answer(status: Int = 200, headers: [String] = [], body: String) -> [UInt8] {
        let head = (["HTTP/1.1 \(status) Scripted", "Content-Length: \(body.utf8.count)"] + headers)
            .joined(separator: "\r\n")
        return Array((head + "\r\n\r\n" + body).utf8)
    }

    var url: String { "http://127.0.0.1:\(port)/verifyReceipt" }
    var connectionsAccepted: Int { state.withLock { $0.accepted } }
    var requests: [Request] { state.withLock { $0.requests } }

    /// Stops listening: the port refuses connections from now on. Only shuts the socket down;
    /// the accept thread closes it once its accept fails, so the descriptor's number cannot be
    /// reused by another test's socket while that thread may still call accept on it (it would
    /// then take that test's connections and answer them with this peer's script).
    func close() {
        state.withLock { $0.closed = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 && (errno == EINTR || errno == ECONNABORTED) { continue }
            guard connection >= 0 else {
                Glibc.close(listener)
                return
            }
            let number = state.withLock { state -> Int in
                state.accepted += 1
                return state.accepted
            }
            Thread { [self] in serve(connection, number: number) }.start()
        }
    }

    private func serve(_ connection: Int32, number: Int) {
        defer { Glibc.close(connection) }
        if let greeting {
            _ = greeting.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // Half-close, then read until the client leaves: closing with its ClientHello unread
            // would send a reset, which can reach the client before the greeting it is reading
            // (it then reports a lost connection instead of a failed handshake).
            shutdown(connection, Int32(SHUT_WR))
            var wait = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            readUntilTheClientLeaves(connection)
            return
        }
        var buffer: [UInt8] = []
        while let request = readRequest(connection, &buffer, number: number) {
            state.withLock { $0.requests.append(request) }
            switch respond(request) {
            case .reply(let bytes):
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .replyThenClose(let bytes):
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return
            case .close:
                return
            case .stall:
                readUntilTheClientLeaves(connection)
                return
            }
        }
    }

    /// Reads and drops whatever arrives until the client closes (or a receive timeout ends it).
    private func readUntilTheClientLeaves(_ connection: Int32) {
        var sink = [UInt8](repeating: 0, count: 4096)
        while sink.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
    }

    private func readRequest(_ connection: Int32, _ buffer: inout [UInt8], number: Int) -> Request? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count - end.upperBound >= length {
                    let body = Array(buffer[end.upperBound..<(end.upperBound + length)])
                    buffer.removeFirst(end.upperBound + length)
                    return Request(head: head, body: body, connection: number)
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
