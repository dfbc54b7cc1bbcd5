import CLinux
import Glibc
import ServiceRuntime
import Synchronization

/// One thread, one epoll set, and every connection it accepted, for their whole life.
///
/// Other threads talk to a loop only through ``execute(_:)``: the work is queued under a lock
/// and the loop is woken through an eventfd. Everything else on this class is touched by the
/// loop thread alone, which is what makes the nghttp2 sessions it owns safe without locks.
final class EventLoop: @unchecked Sendable {
    let index: Int
    let epollFD: Int32
    let wakeFD: Int32
    let server: ServerCore
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private var threadID = pthread_t()
    private var thread: ServiceThread?
    private var stopped = false

    // Loop-thread state.
    var connections: [Int32: Connection] = [:]
    /// Connections with output to flush before the loop next sleeps.
    var dirty: [Connection] = []
    /// The other buffer of ``flushDirty()``'s pair, empty between flushes.
    private var spareDirty: [Connection] = []
    /// The other buffer of ``drainQueue()``'s pair, empty between wakes.
    private var spareWork: [@Sendable () -> Void] = []
    let readBuffer: UnsafeMutableRawBufferPointer
    var accepting = true
    /// Every open connection, filed by when its timeouts next need a look.
    var timeouts = TimeoutWheel<Connection>(tick: .milliseconds(500), slotCount: 1024, origin: .now)
    /// The connections ``checkDueTimeouts(now:)`` is looking at, kept to reuse its storage.
    private var dueConnections: [Connection] = []

    init(index: Int, server: ServerCore) throws {
        self.index = index
        self.server = server
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw TransportError("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw TransportError("eventfd") }
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        try register(fd: wakeFD, events: EPOLLIN.rawValue)
        // EPOLLEXCLUSIVE: one loop wakes per incoming connection instead of all of them.
        try register(fd: server.listenFD, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
    }

    deinit {
        readBuffer.deallocate()
        close(epollFD)
        close(wakeFD)
    }

    var inLoopThread: Bool { pthread_equal(pthread_self(), threadID) != 0 }

    func start() {
        thread = ServiceThread.start { self.run() }
    }

    func join() { thread?.join() }

    /// Work queued by ``execute(_:)`` that the loop has not taken yet (for tests).
    var queuedWork: Int { queue.withLock { $0.count } }

    /// Runs `work` on the loop thread soon. Safe from any thread.
    func execute(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = queue.withLock { pending in
            pending.append(work)
            return pending.count == 1
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    func register(fd: Int32, events: UInt32) throws {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw TransportError("epoll_ctl add") }
    }

    func modify(fd: Int32, events: UInt32) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    func unregister(fd: Int32) {
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    private func run() {
        threadID = pthread_self()
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopped {
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), 250) }
            if n < 0 && errno != EINTR { break }
            for i in 0..<max(0, Int(n)) {
                let fd = events[i].data.fd
                let flags = events[i].events
                if fd == wakeFD {
                    drainQueue()
                } else if fd == server.listenFD {
                    acceptAll()
                } else if let connection = connections[fd] {
                    connection.handleEvents(flags)
                }
            }
            flushDirty()
            let now = ContinuousClock.now
            if now >= timeouts.nextDue { checkDueTimeouts(now: now) }
        }
        for connection in Array(connections.values) { connection.close() }
    }

    /// Runs the timeout checks that are due (slowloris, idle, keepalive, drain deadlines) and
    /// files each connection that stays open for its next one: about twice a second for the
    /// connections with something to watch, once per deadline for the idle ones.
    private func checkDueTimeouts(now: ContinuousClock.Instant) {
        timeouts.takeDue(now: now, into: &dueConnections)
        for connection in dueConnections {
            let next = connection.checkTimeouts(now: now)
            if !connection.closed { timeouts.file(connection, at: next) }
        }
        dueConnections.removeAll(keepingCapacity: true)
        flushDirty()
    }

    private func drainQueue() {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        // The queue and the work being run trade two buffers, as ``flushDirty()``'s lists do:
        // no buffer is allocated per wake.
        var work: [@Sendable () -> Void] = []
        swap(&work, &spareWork)
        queue.withLock { pending in swap(&pending, &work) }
        for item in work { item() }
        work.removeAll(keepingCapacity: true)
        swap(&work, &spareWork)
    }

    private func acceptAll() {
        guard accepting else { return }
        while let fd = Socket.accept(server.listenFD) {
            guard server.reserveConnectionSlot() else {
                close(fd)
                continue
            }
            let connection = Connection(fd: fd, loop: self)
            connections[fd] = connection
            timeouts.file(connection, at: connection.openedAt + server.configuration.headerReadTimeout)
            do {
                try register(fd: fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue)
            } catch {
                connection.close()
            }
        }
    }

    func markDirty(_ connection: Connection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// Flushes every dirty connection, including those marked while flushing.
    ///
    /// The batch being flushed and the list taking new marks trade two buffers back and forth.
    /// Copying the list and then emptying it (`removeAll(keepingCapacity:)` on a buffer the copy
    /// still shares) allocated a new buffer on every wake, as large as the most connections ever
    /// dirty at once, and freed the old one: on a loop holding 10,000 mostly idle connections,
    /// where each call is a wake of its own, one allocation per call.
    func flushDirty() {
        var batch: [Connection] = []
        swap(&batch, &spareDirty)
        while !dirty.isEmpty {
            swap(&batch, &dirty)
            // A connection flushed since it was marked (after its read) is no longer dirty.
            for connection in batch where connection.isDirty {
                connection.isDirty = false
                connection.flush()
            }
            batch.removeAll(keepingCapacity: true)
        }
        swap(&batch, &spareDirty)
    }

    func removed(_ connection: Connection) {
        connections[connection.fd] = nil
        timeouts.remove(connection)
        server.releaseConnectionSlot()
    }

    /// Stops accepting and asks every connection to finish what it started; the loop given
    /// `closingListener` then shuts the listener down.
    ///
    /// Connections the kernel completed but nobody accepted yet are accepted first, and every
    /// connection then reads what has arrived: shutting a listener down resets the connections
    /// in its queue, and closing a connection with unread bytes resets it too, so a client that
    /// had already written its request got a reset, not an answer. Read after the connection
    /// learned of the shutdown, such a request is served like any in flight (HTTP/1.1 answered
    /// with `Connection: close`, HTTP/2 streams before the final GOAWAY); a connection that sent
    /// nothing is closed with FIN.
    func beginShutdown(closingListener: Bool) {
        acceptAll()
        accepting = false
        unregister(fd: server.listenFD)
        if closingListener { Socket.stopListening(server.listenFD) }
        let open = Array(connections.values)
        for connection in open { connection.beginGracefulClose() }
        // Only those reading now: one paused by backpressure resumes as it would have.
        for connection in open where !connection.closed && connection.interest & EPOLLIN.rawValue != 0 {
            connection.handleEvents(EPOLLIN.rawValue)
        }
        flushDirty()
    }

    func stop() { stopped = true }
}
