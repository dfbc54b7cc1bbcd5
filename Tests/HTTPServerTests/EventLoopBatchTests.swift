import CLinux
import Glibc
import HTTPCore
@testable import HTTPServer
import Synchronization
import Testing
import TestSupport

/// The event loop's two reused lists: the connections to flush (``EventLoop/flushDirty()``) and
/// the work other threads queue (``EventLoop/execute(_:)``). Each trades two buffers instead of
/// allocating one per wake; none of it may lose, repeat or reorder an entry.
@Suite(.serialized)
struct EventLoopBatchTests {
    struct Ignoring: HTTPService {
        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {}
    }

    static func server() throws -> HTTPServer {
        try HTTPServer(configuration: ServerConfiguration(port: 0), service: Ignoring())
    }

    /// Reads what is waiting on `fd` without blocking.
    static func available(_ fd: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return n > 0 ? Array(buffer[..<n]) : []
    }

    @Test func everyConnectionMarkedDirtyIsFlushedOncePerMarkRoundAfterRound() throws {
        let server = try Self.server()
        defer { close(server.core.listenFD) }
        let loop = server.loops[0]
        var pairs: [(connection: Connection, peer: Int32)] = []
        for _ in 0..<40 {
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            pairs.append((Connection(fd: fds[0], loop: loop), fds[1]))
        }
        defer {
            for pair in pairs {
                close(pair.connection.fd)
                close(pair.peer)
            }
        }
        // Rounds of different sizes, so each buffer of the pair is filled past what it held before.
        for (round, marked) in [40, 3, 25, 40, 1].enumerated() {
            for (index, pair) in pairs.prefix(marked).enumerated() {
                pair.connection.output = [UInt8(round), UInt8(index)]
                loop.markDirty(pair.connection)
                loop.markDirty(pair.connection)  // twice: still one flush
            }
            loop.flushDirty()
            #expect(loop.dirty.isEmpty)
            for (index, pair) in pairs.enumerated() {
                let expected: [UInt8] = index < marked ? [UInt8(round), UInt8(index)] : []
                #expect(Self.available(pair.peer) == expected, "round \(round), connection \(index)")
                #expect(!pair.connection.isDirty)
            }
        }
    }

    struct Answering: HTTPService {
        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
            writer.respond(.text(200, "ok\n"))
        }
    }

    /// A read's answers leave in the same turn as the read (while the connection's memory is
    /// still in cache), not in the loop's flush after every other connection's read; that flush
    /// then finds nothing more to send for it.
    @Test func answersToARequestLeaveBeforeTheLoopFlushesTheOtherConnections() async throws {
        let server = try HTTPServer(configuration: ServerConfiguration(port: 0), service: Answering())
        server.start()
        let loop = server.loops[0]
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let (local, peer) = (fds[0], fds[1])
        defer {
            close(local)
            close(peer)
        }
        let request = Array("GET / HTTP/1.1\r\nhost: x\r\n\r\n".utf8)
        #expect(request.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, 0) } == request.count)
        let seen = Mutex<(afterRead: [UInt8], afterLoopFlush: [UInt8], dirty: Bool)?>(nil)
        loop.execute {
            // On the loop thread, as epoll would call it: the service answers inline.
            let connection = Connection(fd: local, loop: loop)
            connection.handleEvents(EPOLLIN.rawValue)
            let afterRead = Self.available(peer)
            loop.flushDirty()
            seen.withLock { $0 = (afterRead, Self.available(peer), connection.isDirty) }
        }
        try await eventually("the loop handled the read") { seen.withLock { $0 != nil } }
        let result = try #require(seen.withLock { $0 })
        #expect(String(decoding: result.afterRead, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        #expect(String(decoding: result.afterRead, as: UTF8.self).hasSuffix("ok\n"))
        #expect(result.afterLoopFlush.isEmpty)
        #expect(!result.dirty)
        await server.shutdown(gracePeriod: .milliseconds(100))
    }

    @Test func workQueuedFromOtherThreadsRunsOnceEachInOrderAcrossManyWakes() async throws {
        let server = try Self.server()
        server.start()
        let loop = server.loops[0]
        let ran = Mutex<[Int]>([])
        let done = Atomic<Bool>(false)
        for batch in 0..<50 {
            // Batches of different sizes: some wakes find one item, some many.
            for item in 0..<(batch % 7 + 1) {
                let number = batch * 10 + item
                loop.execute { ran.withLock { $0.append(number) } }
            }
            if batch % 5 == 0 { usleep(1_000) }
        }
        loop.execute { done.store(true, ordering: .releasing) }
        try await eventually("the loop ran every item") { done.load(ordering: .acquiring) }
        let expected = (0..<50).flatMap { batch in (0..<(batch % 7 + 1)).map { batch * 10 + $0 } }
        #expect(ran.withLock { $0 } == expected)
        await server.shutdown(gracePeriod: .milliseconds(100))
    }
}
