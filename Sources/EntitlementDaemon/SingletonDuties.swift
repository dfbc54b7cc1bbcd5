import ServiceRuntime
import StorageCore
import Synchronization

/// The work that must run on exactly one replica (reconciliation, webhook delivery, the store's
/// timed duties): started while this process holds the singleton lease, stopped when it loses it.
///
/// The lease's changes arrive on its thread; ``run()`` applies them one at a time, in order, so
/// a stop always finishes before the next start. With SQLite there is one process and no lease:
/// the daemon reports `acquired` at startup. At shutdown ``stop()`` stops the duties before the
/// daemon releases the lease, so two replicas never run them at once by our doing.
final class SingletonDuties: Sendable {
    /// One job: how to start it, and how to stop it (returning once it has stopped).
    struct Duty: Sendable {
        var name: String
        var start: @Sendable () -> Void
        var stop: @Sendable () async -> Void
    }

    private enum Event: Sendable {
        case lease(SingletonLeaseChange)
        case shutdown
    }

    private let duties: [Duty]
    private let logger: Logger
    private let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let active = Atomic(false)
    private let finished = Latch()
    /// Whether ``run()`` has begun, or ``stop()`` came first (a failed or very short startup):
    /// then there is no loop to stop, and none may begin.
    private let phase = Mutex(Phase.idle)

    private enum Phase {
        case idle, running, stopped
    }

    init(duties: [Duty], logger: Logger) {
        self.duties = duties
        self.logger = logger
        (events, sink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Whether the duties run in this process now (the `entitlementd_singleton_lease_held` gauge).
    var isActive: Bool { active.load(ordering: .acquiring) }

    /// The lease's callback; any thread.
    func leaseChanged(_ change: SingletonLeaseChange) {
        sink.yield(.lease(change))
    }

    /// Applies lease changes until ``stop()``.
    func run() async {
        let begins = phase.withLock { phase in
            guard phase == .idle else { return false }
            phase = .running
            return true
        }
        guard begins else { return }
        defer { finished.open() }
        var shuttingDown = false
        for await event in events {
            switch event {
            case .lease(.acquired):
                guard !shuttingDown, !isActive else { continue }
                logger.info("singleton lease acquired: this replica runs the singleton duties",
                            [("duties", duties.map(\.name).joined(separator: ","))])
                for duty in duties { duty.start() }
                active.store(true, ordering: .releasing)
            case .lease(.lost(let reason)):
                logger.warning("singleton lease lost: stopping the singleton duties; another replica takes over",
                               [("reason", reason)])
                await stopDuties()
            case .lease(.released):
                await stopDuties()
                logger.info("singleton lease released")
            case .lease(.unavailable(let reason)):
                logger.warning("singleton lease: cannot reach the database; retrying every second",
                               [("reason", reason)])
            case .shutdown:
                // The daemon releases the lease right after: say so now, the lease's own
                // `released` arrives after this loop has ended.
                shuttingDown = true
                if await stopDuties() { logger.info("singleton lease released: shutting down") }
                sink.finish()
            }
        }
    }

    /// Stops the duties (if running) and ends ``run()``; returns once both are done. Before
    /// ``run()`` has begun it only makes sure none will.
    func stop() async {
        let running = phase.withLock { phase in
            defer { phase = .stopped }
            return phase == .running
        }
        guard running else { return }
        sink.yield(.shutdown)
        await finished.wait()
    }

    /// Whether they were running.
    @discardableResult
    private func stopDuties() async -> Bool {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return false }
        for duty in duties.reversed() { await duty.stop() }
        return true
    }
}
