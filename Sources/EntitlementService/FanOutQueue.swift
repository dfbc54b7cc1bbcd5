import Glibc
import ServiceRuntime

/// The fan-out thread's to-do list: log reads to run for replaying watchers, and whether the
/// log has grown past what was delivered. The thread sleeps on the condition until one holds.
final class FanOutQueue: @unchecked Sendable {
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var jobs: [@Sendable () -> Void] = []
    private var newestCommitted = Int64.min
    private var stopping = false

    /// Queues `job` for the thread; false once stopping (the job will not run).
    func post(_ job: @escaping @Sendable () -> Void) -> Bool {
        lock.withLock {
            if stopping { return false }
            jobs.append(job)
            lock.signal()
            return true
        }
    }

    /// The store committed changes up to `sequence`. Never blocks for long: a store thread calls it.
    func committed(_ sequence: Int64) {
        lock.withLock {
            newestCommitted = max(newestCommitted, sequence)
            lock.signal()
        }
    }

    func stop() {
        lock.withLock {
            stopping = true
            lock.signal()
        }
    }

    /// After a failed log read: wait a moment before the thread tries again.
    func pause() {
        usleep(500_000)
    }

    /// Blocks until there is work: the queued jobs, and the newest committed sequence if it is
    /// past `position` (else nil). Nil once stopping and every queued job has been handed out.
    func next(position: Int64) -> (jobs: [@Sendable () -> Void], committed: Int64?)? {
        lock.withLock {
            while jobs.isEmpty && newestCommitted <= position && !stopping { lock.wait() }
            if stopping && jobs.isEmpty { return nil }
            defer { jobs.removeAll() }
            return (jobs, !stopping && newestCommitted > position ? newestCommitted : nil)
        }
    }
}
