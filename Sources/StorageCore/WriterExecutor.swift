import Glibc
import ServiceRuntime
import Synchronization

/// The store actor's serial executor: one dedicated thread, the writer thread, that runs the
/// actor's jobs and, between rounds of them, lets the store commit the writes queued in its
/// inbox (``submit(_:)``) as one batch.
///
/// A thread of its own rather than the cooperative pool: the engine's calls block (fsync, a
/// server's round trips), and a blocked pool thread (one per core) would stall unrelated tasks.
/// The inbox is what keeps group commit: a write is handed over with its continuation and
/// never becomes a job, so its caller resumes straight on its own executor after the commit,
/// and the writes that arrive while one batch commits are all taken by the next
/// (see ``SQLStore``).
///
/// Lives as long as its actor: a job can only be enqueued through the actor, and every queued
/// job or write holds the actor, so when its deinit ``stop()``s the executor nothing is queued.
package final class WriterExecutor<Work: Sendable>: SerialExecutor, @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [UnownedJob] = []
    /// Writes handed over by ``submit(_:)``, in arrival order, for the next batch.
    private var inbox: [Work] = []
    /// Set by ``closeInbox()``: later writes are refused.
    private var isInboxClosed = false
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
            if jobs.count == 1 && inbox.isEmpty { lock.signal() }
        }
    }

    /// Queues `work` for the next batch; `false` once the inbox is closed (the caller must
    /// answer it itself).
    package func submit(_ work: Work) -> Bool {
        lock.withLock {
            guard !isInboxClosed else { return false }
            inbox.append(work)
            if inbox.count == 1 && jobs.isEmpty { lock.signal() }
            return true
        }
    }

    /// Up to `limit` writes of the inbox, oldest first; on the writer thread, for its batch.
    package func takeWork(limit: Int) -> [Work] {
        lock.withLock {
            if inbox.count <= limit {
                defer { inbox = [] }
                return inbox
            }
            defer { inbox.removeFirst(limit) }
            return Array(inbox[..<limit])
        }
    }

    /// Refuses later writes; those already queued still commit.
    package func closeInbox() {
        lock.withLock { isInboxClosed = true }
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

    /// Jobs and writes waiting for the writer thread (tests queue a batch behind a writer they
    /// hold busy).
    package var pendingJobs: Int { lock.withLock { jobs.count + inbox.count } }

    /// Starts the writer thread, once; `false` when it had started already. Jobs and writes
    /// queued before wait for it. `endOfRound` runs on it after each round of jobs (it takes the
    /// inbox's writes) and answers how long the next wait may last (nil: until something is
    /// queued); the first round is empty.
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

    /// Blocks until a job or a write is queued or `waitingAtMostMs` has passed (none: no
    /// limit); returns every queued job in arrival order (none when only writes are, or the wait
    /// ran out), or `nil` once stopped with nothing queued.
    private func take(waitingAtMostMs: Int64?) -> [UnownedJob]? {
        lock.withLock {
            let deadline = waitingAtMostMs.map { ContinuousClock.now + .milliseconds($0) }
            while jobs.isEmpty && inbox.isEmpty && !isStopped {
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
            if jobs.isEmpty && inbox.isEmpty { return nil }
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
