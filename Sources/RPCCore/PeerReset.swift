import Synchronization

/// Whether the peer reset a call after the call's deadline had passed, which makes the
/// deadline, not the peer, what ended it.
///
/// A client resets the stream (RST_STREAM CANCEL) when its own deadline fires, and its deadline
/// is never later than ours: grpc-timeout is what it had left when it sent the call, and we
/// count from when the call arrived. So the reset comes at or just after our deadline, and on
/// a loaded machine it can be read before our deadline timer has run. Counting that call
/// CANCELLED would make a server-enforced deadline look like a caller that gave up; it is
/// answered (were the stream still open), counted and logged DEADLINE_EXCEEDED.
final class PeerReset: Sendable {
    private let deadline: ContinuousClock.Instant?
    private let afterDeadline = Atomic<Bool>(false)

    init(deadline: ContinuousClock.Instant?) {
        self.deadline = deadline
    }

    /// The rule: a reset at or after the deadline came too late to be the caller's own decision.
    static func endsByDeadline(deadline: ContinuousClock.Instant?, resetAt: ContinuousClock.Instant) -> Bool {
        guard let deadline else { return false }
        return resetAt >= deadline
    }

    /// Records that the peer reset the call now; call it before cancelling the call's work,
    /// so the outcome that cancellation produces sees it.
    func record(at instant: ContinuousClock.Instant = .now) {
        if Self.endsByDeadline(deadline: deadline, resetAt: instant) {
            afterDeadline.store(true, ordering: .releasing)
        }
    }

    /// True once a reset at or after the deadline was recorded.
    var cameAfterDeadline: Bool { afterDeadline.load(ordering: .acquiring) }
}
