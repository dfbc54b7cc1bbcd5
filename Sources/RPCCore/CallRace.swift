import Synchronization

/// A call's one answer: whichever of its handler and its deadline comes first is delivered,
/// once, and the other is dropped.
///
/// The handler runs in the call's task (``run(_:)``); the deadline is an entry in
/// ``DeadlineTimer`` (``arm(deadline:cancelling:)``) that, should it fire first, delivers
/// DEADLINE_EXCEEDED from the timer thread and cancels the task. So a handler that ignores
/// cancellation cannot hold back the deadline's answer; its late outcome is dropped unread. A
/// peer's reset after the deadline (``PeerReset``) leaves the deadline the call's end.
final class CallRace<T: Sendable>: Sendable {
    private struct Timer {
        var entry: DeadlineTimer.Entry?
        /// The handler's outcome is in (or the deadline fired): arming now schedules nothing.
        var finished = false
    }

    private let peerReset: PeerReset
    private let deliver: @Sendable (Result<T, any Error>) -> Void
    private let timer: DeadlineTimer
    private let delivered = Atomic<Bool>(false)
    private let armed = Mutex(Timer())
    private static var expired: RPCError { RPCError(.deadlineExceeded, "deadline exceeded") }

    init(peerReset: PeerReset, timer: DeadlineTimer = .shared,
         deliver: @escaping @Sendable (Result<T, any Error>) -> Void) {
        self.peerReset = peerReset
        self.timer = timer
        self.deliver = deliver
    }

    /// Runs the handler and delivers its outcome unless the deadline already answered; then
    /// takes the deadline out of the timer.
    func run(_ body: @Sendable () async throws -> T) async {
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        settle(outcome)
        if let entry = armed.withLock({ timer -> DeadlineTimer.Entry? in
            timer.finished = true
            defer { timer.entry = nil }
            return timer.entry
        }) {
            self.timer.cancel(entry)
        }
    }

    /// Schedules the deadline (none: the handler alone answers); at it, DEADLINE_EXCEEDED is
    /// delivered unless the handler's outcome was, and `task` is cancelled.
    func arm<Success, Failure>(deadline: ContinuousClock.Instant?, cancelling task: Task<Success, Failure>) {
        guard let deadline, !armed.withLock({ $0.finished }) else { return }
        let entry = timer.schedule(at: deadline) { [self] in
            if settle(.failure(Self.expired)) { task.cancel() }
        }
        let lateToArm = armed.withLock { timer -> Bool in
            if timer.finished { return true }
            timer.entry = entry
            return false
        }
        if lateToArm { timer.cancel(entry) }
    }

    /// Delivers `outcome` if nothing was delivered yet; whether it was.
    @discardableResult
    private func settle(_ outcome: Result<T, any Error>) -> Bool {
        guard delivered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return false }
        deliver(peerReset.cameAfterDeadline ? .failure(Self.expired) : outcome)
        return true
    }
}
