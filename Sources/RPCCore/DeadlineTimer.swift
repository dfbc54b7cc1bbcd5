import ServiceRuntime

/// Fires calls' deadlines from one thread of its own.
///
/// Why not a `Task.sleep` per call, raced in a task group: each call then paid a task group, a
/// second child task, and a dispatch timer armed and cancelled, which woke libdispatch's
/// manager thread through an eventfd twice per call (2–4 % of SubmitReceipt's CPU). Here a call
/// adds an entry to a heap under a lock and takes it out when it ends first; the thread is
/// woken only when a new deadline is earlier than every pending one (rare: calls of one client
/// carry alike timeouts, so later calls end later) and otherwise sleeps until the earliest.
///
/// Actions run on the timer thread, one after another: they must be quick and must not block
/// (a call's is: answer DEADLINE_EXCEEDED through the transport's writer, cancel its task).
final class DeadlineTimer: @unchecked Sendable {
    typealias Entry = DeadlineHeap.Entry

    /// The process's timer; its thread starts with the first deadline scheduled.
    static let shared = DeadlineTimer()

    /// The longest single sleep: the condition variable waits by the wall clock, so a step of
    /// that clock can delay a deadline by at most this much.
    static let maximumSleepMilliseconds: Int64 = 250

    private let lock = ConditionLock()
    // Guarded by `lock`:
    private var heap = DeadlineHeap()
    private var sequence: UInt64 = 0
    private var started = false

    /// Schedules `action` for `deadline` (at once if it has passed); keep the entry to cancel it.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Entry {
        let (entry, start) = lock.withLock {
            sequence &+= 1
            let entry = Entry(deadline: deadline, sequence: sequence, action: action)
            heap.insert(entry)
            // The sleeping thread waits for the previous earliest deadline: wake it to re-plan.
            if started && heap.earliest === entry { lock.signal() }
            defer { started = true }
            return (entry, !started)
        }
        if start { ServiceThread.detach { [self] in run() } }
        return entry
    }

    /// Takes `entry` out unless it already fired; its action will not run after this returns
    /// (it may be running on the timer thread right now).
    func cancel(_ entry: Entry) {
        lock.withLock {
            heap.remove(entry)
            entry.action = nil
        }
    }

    /// Deadlines waiting to fire (for tests).
    var pendingCount: Int { lock.withLock { heap.count } }

    private func run() {
        while true {
            let actions: [@Sendable () -> Void] = lock.withLock {
                while true {
                    let now = ContinuousClock.now
                    let due = heap.removeDue(now: now)
                    if !due.isEmpty {
                        return due.compactMap { entry in
                            defer { entry.action = nil }
                            return entry.action
                        }
                    }
                    guard let next = heap.earliest else {
                        lock.wait()
                        continue
                    }
                    let sleep = Self.millisecondsUntil(next.deadline, from: now)
                    _ = lock.wait(milliseconds: min(Self.maximumSleepMilliseconds, sleep))
                }
            }
            for action in actions { action() }
        }
    }

    /// Whole milliseconds from `now` to `deadline`, rounded up so a wait never ends early by
    /// rounding (at least 1).
    static func millisecondsUntil(_ deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (deadline - now).components
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return max(1, milliseconds)
    }
}
