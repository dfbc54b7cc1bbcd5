/// The bound on concurrent calls to Apple, first come first served: the permits
/// ``ReceiptVerifier`` owns.
///
/// A burst queues behind the calls in progress instead of opening a connection each. A value
/// whose transitions hand back the waiter to resume, so the actor resumes it once its state is
/// consistent. A permit released while callers wait goes straight to the longest waiter; a
/// waiter withdrawn (its caller gave up) takes none.
struct PermitQueue {
    typealias Waiter = CheckedContinuation<Void, any Error>

    private(set) var available: Int
    private var waiting: [(ticket: UInt64, waiter: Waiter)] = []
    private var head = 0
    private var lastTicket: UInt64 = 0

    init(permits: Int) {
        available = max(1, permits)
    }

    /// Callers waiting for a permit now.
    var queued: Int { waiting.count - head }

    /// Takes a permit now (nil), or returns the ticket to wait with when none is free or others
    /// already wait.
    mutating func acquire() -> UInt64? {
        if available > 0 && queued == 0 {
            available -= 1
            return nil
        }
        lastTicket += 1
        return lastTicket
    }

    /// Queues `waiter` for `ticket`, behind every earlier one.
    mutating func enqueue(_ ticket: UInt64, _ waiter: Waiter) {
        waiting.append((ticket, waiter))
    }

    /// Returns a permit: the waiter it was handed to (to resume), or nil when it went back to
    /// the pool.
    mutating func release() -> Waiter? {
        guard head < waiting.count else {
            available += 1
            return nil
        }
        let next = waiting[head].waiter
        head += 1
        if head > 64 && head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return next
    }

    /// Takes `ticket` out of the queue; its waiter (to resume with CancellationError), or nil
    /// when it was already handed a permit, which its caller then holds and must release.
    mutating func withdraw(_ ticket: UInt64) -> Waiter? {
        guard let index = waiting[head...].firstIndex(where: { $0.ticket == ticket }) else { return nil }
        return waiting.remove(at: index).waiter
    }
}
