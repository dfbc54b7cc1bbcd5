import Glibc
import ServiceRuntime
import Synchronization

/// The store actor's serial executor: one dedicated thread, the writer thread, runs the actor's
/// jobs in rounds, and between rounds lets the store commit what those jobs queued.
///
/// A thread of its own rather than the cooperative pool: the engine's calls block (fsync, a
/// server's round trips), and a blocked pool thread (one per core) would stall unrelated tasks.
/// Rounds are what keeps group commit: a round takes every job queued when it starts, so the
/// calls that arrived while the previous batch committed all run, each adding its write to the
/// batch, before the end of the round commits them together (see ``SQLStore``).
///
/// Lives as long as its actor: a job can only be enqueued through the actor, and every queued
/// job holds the actor, so when the actor's deinit ``stop()``s the executor the queue is empty.
package final class WriterExecutor: SerialExecutor, @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [UnownedJob] = []
    /// Set by ``wake()``: the next timed wait returns at once, as if its time had run out.
    private var isWoken = false
    private var isStopped = false
    private let isStarted = Atomic<Bool>(false)
    /// The writer thread's `pthread_t` once it runs (0 before): how ``isIsolatingCurrentContext()``
    /// knows the store's code outside a job (the end of a round) is on the actor's executor.
    private let threadID = Atomic<UInt>(0)

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock {
            jobs.append(job)
            if jobs.count == 1 { lock.signal() }
        }
    }

    /// Whether the caller runs on the writer thread, inside a job or not; what lets the end of a
    /// round enter the actor with `assumeIsolated` instead of a job of its own.
    package func isIsolatingCurrentContext() -> Bool? {
        let thread = threadID.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(pthread_self(), thread) != 0
    }

    package func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true, "not on the store's writer thread")
    }

    /// Jobs waiting for the writer thread (tests queue a batch behind a writer they hold busy).
    package var pendingJobs: Int { lock.withLock { jobs.count } }

    /// Starts the writer thread, once; `false` when it had started already. Jobs enqueued
    /// before wait for it. `endOfRound` runs on it after each round of jobs and answers how
    /// long the next wait for jobs may last (nil: until one arrives); its first round is empty.
    package func start(endOfRound: @escaping () -> Int64?) -> Bool {
        guard !isStarted.exchange(true, ordering: .acquiringAndReleasing) else { return false }
        ServiceThread.detach { [self] in run(endOfRound: endOfRound) }
        return true
    }

    private func run(endOfRound: () -> Int64?) {
        threadID.store(pthread_self(), ordering: .releasing)
        let executor = asUnownedSerialExecutor()
        var wait: Int64? = 0
        while let round = take(waitingAtMostMs: wait) {
            for job in round { job.runSynchronously(on: executor) }
            wait = endOfRound()
        }
    }

    /// Blocks until a job is queued or `waitingAtMostMs` has passed (none: no limit); returns
    /// every queued job in arrival order (none when the wait ran out), or `nil` once stopped.
    private func take(waitingAtMostMs: Int64?) -> [UnownedJob]? {
        lock.withLock {
            let deadline = waitingAtMostMs.map { ContinuousClock.now + .milliseconds($0) }
            while jobs.isEmpty && !isStopped {
                if isWoken {
                    isWoken = false
                    return []
                }
                guard let deadline else {
                    lock.wait()
                    continue
                }
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return [] }
                _ = lock.wait(milliseconds: max(1, left.inMilliseconds))
            }
            if jobs.isEmpty { return nil }
            defer { jobs = [] }
            return jobs
        }
    }

    /// Ends the writer thread's current wait early (its timed work was just switched on).
    package func wake() {
        lock.withLock {
            isWoken = true
            lock.signal()
        }
    }

    /// Ends the writer thread once the queue is empty (the actor is going).
    package func stop() {
        lock.withLock {
            isStopped = true
            lock.signal()
        }
    }
}
