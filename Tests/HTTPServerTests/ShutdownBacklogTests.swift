import Dispatch
import Foundation
import Glibc
import HTTPCore
@testable import HTTPServer
import Synchronization
import Testing
import TestSupport

/// Connections the kernel completed but no loop accepted yet when a shutdown begins are
/// accepted and answered (``EventLoop/beginShutdown(closingListener:)``). Shutting the listener
/// down first reset them, so a client that had already written its request got ECONNRESET.
@Suite(.serialized)
struct ShutdownBacklogTests {
    /// Answers every request; `/block` only once `release` is signalled, holding its loop (the
    /// one loop) so that connections made meanwhile wait in the listener's queue.
    struct Blocking: HTTPService {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        func handle(_ request: HTTPRequest, writer: any HTTPResponseWriter) {
            if request.path == "/block" {
                entered.signal()
                release.wait()
            }
            writer.respond(.text(200, "ok\n"))
        }
    }

    @Test func requestsWaitingInTheListenQueueAreAnsweredAtShutdown() throws {
        let service = Blocking()
        let server = try HTTPServer(configuration: ServerConfiguration(port: 0, threads: 1), service: service)
        let port = UInt16(server.boundAddress.split(separator: ":").last!)!
        server.start()
        let answers = Mutex<[String?]>([])
        let readers = DispatchGroup()
        func request(_ path: String) throws {
            let fd = try #require(LingeringCloseTests.connect(port: port))
            #expect(LingeringCloseTests.send(fd, "GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n"))
            readers.enter()
            // Threads of their own: blocked readers must not hold back the shutdown, as they
            // would on Dispatch's global queue (as many threads as cores).
            Thread.detachNewThread {
                let answer = LingeringCloseTests.readToEnd(fd)
                close(fd)
                answers.withLock { $0.append(answer) }
                readers.leave()
            }
        }
        try request("/block")
        service.entered.wait()
        for _ in 0..<4 { try request("/queued") }  // the loop is busy: these stay in the queue
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdownBlocking(gracePeriod: .seconds(10))
            stopped.signal()
        }
        // The shutdown has begun (before the fix: the listener, and its queue, were gone): its
        // work waits in the busy loop's queue. Polled, not slept: the shutdown thread may be late.
        try eventuallyBlocking("the shutdown queued its work") { server.loops[0].queuedWork > 0 }
        service.release.signal()
        stopped.wait()
        readers.wait()
        let received = answers.withLock { $0 }
        #expect(received.count == 5)
        for answer in received {
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "got \(answer ?? "a reset or a timeout")")
        }
        // The queued four were read after the shutdown began, so their answers say it.
        #expect(received.filter { $0?.lowercased().contains("connection: close") == true }.count >= 4)
    }
}
