import Glibc
import HTTPCore
@testable import HTTPServer
import Synchronization
import Testing

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
        // A generous bound for a loaded machine: the loop runs each wake's work at once.
        for _ in 0..<2_000 where !done.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        let finished = done.load(ordering: .acquiring)
        #expect(finished)
        let expected = (0..<50).flatMap { batch in (0..<(batch % 7 + 1)).map { batch * 10 + $0 } }
        #expect(ran.withLock { $0 } == expected)
        await server.shutdown(gracePeriod: .milliseconds(100))
    }
}
