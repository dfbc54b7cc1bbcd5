import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime

/// One unit of work for the writer thread, with the continuation that answers its caller.
package enum WriteJob<DB: StorageEngine>: Sendable {
    case write(FactsWrite, CheckedContinuation<WriteOutcome, any Error>)
    case notification(NotificationWrite, CheckedContinuation<NotificationOutcome, any Error>)
    case seed([FactsWrite], CheckedContinuation<Void, any Error>)
    /// Webhook outbox rows and delivery outcomes; batched with facts writes.
    case webhooks(WebhookOutboxWrite, CheckedContinuation<WebhookOutboxAnswer, any Error>)
    /// Runs on the writer thread between batches with the writer's connection (fault tests via
    /// ``SQLStore/withWriterConnection(_:)``, and the reconciliation watermark).
    case withConnection(@Sendable (DB) throws -> Void, CheckedContinuation<Void, any Error>)
    /// Writes the time-driven changes due by now (``SQLStore/recordDueChanges()``).
    case dueChanges(CheckedContinuation<Int, any Error>)
    /// Prunes old changes (``SQLStore/pruneChanges(occurredBefore:limit:)``).
    case pruneChanges(cutoffMs: Int64, limit: Int, CheckedContinuation<Int, any Error>)
}

/// The hand-off between callers (any thread) and the writer thread.
///
/// Callers append and return at once; the writer takes everything queued when it is free, so
/// the writes that arrive while a batch commits become the next batch (group commit).
package final class WriteQueue<DB: StorageEngine>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var jobs: [WriteJob<DB>] = []
    private var isClosed = false
    private var isFinished = false
    /// Set by ``wake()``: the next wait returns at once, as if its time had run out.
    private var isWoken = false
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []

    /// Jobs waiting for the writer (tests queue a batch behind a writer they hold busy).
    package var pendingJobs: Int { lock.withLock { jobs.count } }

    /// Queues `job`; `false` once the queue is closed (the caller must answer the job itself).
    package func enqueue(_ job: WriteJob<DB>) -> Bool {
        lock.withLock {
            guard !isClosed else { return false }
            jobs.append(job)
            if jobs.count == 1 { lock.signal() }
            return true
        }
    }

    /// Blocks until work is queued or, with `waitingAtMostMs`, that long has passed; returns up
    /// to `limit` jobs in arrival order (none when the wait ran out: the writer's timer), or
    /// `nil` once the queue is closed and drained.
    package func take(limit: Int, waitingAtMostMs: Int64? = nil) -> [WriteJob<DB>]? {
        lock.withLock {
            if let waitingAtMostMs {
                let deadline = ContinuousClock.now + .milliseconds(waitingAtMostMs)
                while jobs.isEmpty && !isClosed {
                    if isWoken {
                        isWoken = false
                        return []
                    }
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else { return [] }
                    _ = lock.wait(milliseconds: max(1, left.inMilliseconds))
                }
            }
            while jobs.isEmpty && !isClosed { lock.wait() }
            if jobs.isEmpty { return nil }
            if jobs.count <= limit {
                defer { jobs = [] }
                return jobs
            }
            defer { jobs.removeFirst(limit) }
            return Array(jobs[..<limit])
        }
    }

    /// Ends the writer's current timed wait early (its timed work was just switched on).
    package func wake() {
        lock.withLock {
            isWoken = true
            lock.signal()
        }
    }

    /// Refuses new jobs; the writer still drains what was queued before.
    package func close() {
        lock.withLock {
            isClosed = true
            lock.signal()
        }
    }

    /// Resumes `waiter` once the writer has drained the queue and closed its connection.
    package func waitUntilFinished(_ waiter: CheckedContinuation<Void, Never>) {
        let finished = lock.withLock {
            if !isFinished { finishWaiters.append(waiter) }
            return isFinished
        }
        if finished { waiter.resume() }
    }

    /// Called by the writer thread as its last act.
    package func markFinished() {
        let waiters = lock.withLock {
            isFinished = true
            defer { finishWaiters.removeAll() }
            return finishWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
