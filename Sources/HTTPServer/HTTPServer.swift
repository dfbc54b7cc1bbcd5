import Glibc
import HTTPCore
import ServiceRuntime
import Synchronization

/// State shared by every loop of one server.
final class ServerCore: Sendable {
    let listenFD: Int32
    let service: any HTTPService
    let configuration: ServerConfiguration
    let connectionCount = Atomic<Int>(0)
    /// Requests dispatched to the service and not yet answered or abandoned (HTTP/2 streams
    /// and HTTP/1.1 requests in flight).
    let activeRequests = Atomic<Int>(0)

    init(listenFD: Int32, service: any HTTPService, configuration: ServerConfiguration) {
        self.listenFD = listenFD
        self.service = service
        self.configuration = configuration
    }

    func reserveConnectionSlot() -> Bool {
        var current = connectionCount.load(ordering: .relaxed)
        while current < configuration.maxConnections {
            let (exchanged, original) = connectionCount.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func releaseConnectionSlot() {
        connectionCount.wrappingSubtract(1, ordering: .relaxed)
    }
}

/// An HTTP/1.1 + HTTP/2 (h2c) server on epoll loops, handing whole requests to one service.
///
/// One listening socket is shared by all loops (EPOLLEXCLUSIVE wakes one per connection); a
/// connection then stays on the loop that accepted it.
///
/// Lifecycle: `init` binds (so ``boundAddress`` is known, port 0 included) and starts nothing;
/// ``start()`` or ``run()`` starts one thread per loop; ``shutdown(gracePeriod:)`` drains and
/// stops them, after which ``run()`` returns.
public final class HTTPServer: Sendable {
    let core: ServerCore
    let loops: [EventLoop]
    /// The address actually listened on, e.g. `127.0.0.1:50051` (the real port when 0 was asked).
    public let boundAddress: String
    private let started = Atomic<Bool>(false)
    /// Open once every loop thread has returned (or at shutdown, if none was started).
    private let stopped = Latch()

    public init(configuration: ServerConfiguration, service: any HTTPService) throws {
        let (fd, bound) = try Socket.listen(host: configuration.host, port: configuration.port)
        core = ServerCore(listenFD: fd, service: service, configuration: configuration)
        boundAddress = bound
        var loops: [EventLoop] = []
        for index in 0..<max(1, configuration.threads) {
            loops.append(try EventLoop(index: index, server: core))
        }
        self.loops = loops
    }

    /// Starts the loop threads; connections queued in the backlog since `init` are accepted
    /// now. Later calls do nothing.
    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for loop in loops { loop.start() }
        let (loops, stopped) = (self.loops, self.stopped)
        ServiceThread.detach {
            for loop in loops { loop.join() }
            stopped.open()
        }
    }

    /// Serves until ``shutdown(gracePeriod:)`` has stopped every loop.
    public func run() async {
        start()
        await stopped.wait()
    }

    public var openConnections: Int { core.connectionCount.load(ordering: .relaxed) }

    /// Requests in flight across every connection.
    public var activeRequests: Int { core.activeRequests.load(ordering: .relaxed) }

    /// Stops accepting, sends GOAWAY, lets in-flight requests finish for up to `gracePeriod`,
    /// then closes whatever is left and stops the loops; returns once they have stopped.
    /// Cancelling the calling task ends the grace period early.
    public func shutdown(gracePeriod: Duration) async {
        let deadline = beginShutdown(gracePeriod: gracePeriod)
        while !isDrained(by: deadline) {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        stopLoops()
        await stopped.wait()
        close(core.listenFD)
    }

    /// ``shutdown(gracePeriod:)`` for code that is not async (tools, tests): blocks the thread.
    public func shutdownBlocking(gracePeriod: Duration) {
        let deadline = beginShutdown(gracePeriod: gracePeriod)
        while !isDrained(by: deadline) { usleep(20_000) }
        stopLoops()
        stopped.waitBlocking()
        close(core.listenFD)
    }

    private func beginShutdown(gracePeriod: Duration) -> ContinuousClock.Instant {
        if started.load(ordering: .acquiring) {
            // The first loop stops listening after it has accepted what the kernel queued.
            for (index, loop) in loops.enumerated() {
                loop.execute { loop.beginShutdown(closingListener: index == 0) }
            }
        } else {
            Socket.stopListening(core.listenFD)
        }
        return ContinuousClock.now + gracePeriod
    }

    /// The grace period is over: every connection has closed, or the deadline has passed.
    private func isDrained(by deadline: ContinuousClock.Instant) -> Bool {
        core.connectionCount.load(ordering: .relaxed) == 0 || ContinuousClock.now >= deadline
    }

    private func stopLoops() {
        guard started.exchange(true, ordering: .acquiringAndReleasing) else {
            stopped.open()  // never started: no thread to stop
            return
        }
        for loop in loops { loop.execute { loop.stop() } }
    }
}
