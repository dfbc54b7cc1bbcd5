/// Permits for concurrent calls to a slow dependency (Apple's verifyReceipt), handed out first
/// come, first served, while a burst queues behind them.
///
/// A value the ``ReceiptVerifier`` keeps in its isolation: its methods only change the count
/// and the queue and return the waiter to resume, which the actor resumes. A waiter whose task is
/// cancelled (its RPC went away or hit its deadline) is taken out of the queue and takes no permit.
struct PermitQueue {
    private struct Waiter {
        let ticket: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private(set) var available: Int
    private var queue: [Waiter] = []
    private var head = 0
    private var lastTicket: UInt64 = 0

    init(permits: Int) {
        available = max(1, permits)
    }

    /// Callers waiting for a permit now.
    var queued: Int { queue.count - head }

    /// Takes a permit when one is free and nobody queues for it already.
    mutating func take() -> Bool {
        guard available > 0, head == queue.count else { return false }
        available -= 1
        return true
    }

    /// A ticket for a caller about to wait: known before its continuation exists, so a
    /// cancellation that comes first can still name it.
    mutating func ticket() -> UInt64 {
        lastTicket += 1
        return lastTicket
    }

    mutating func wait(_ ticket: UInt64, _ continuation: CheckedContinuation<Void, any Error>) {
        queue.append(Waiter(ticket: ticket, continuation: continuation))
    }

    /// Takes `ticket` out of the queue; its continuation, nil when a permit reached it first.
    mutating func withdraw(_ ticket: UInt64) -> CheckedContinuation<Void, any Error>? {
        guard let index = queue[head...].firstIndex(where: { $0.ticket == ticket }) else { return nil }
        return queue.remove(at: index).continuation
    }

    /// Returns a permit: the longest waiter to hand it to, or nil when it went back to the pool.
    mutating func release() -> CheckedContinuation<Void, any Error>? {
        guard head < queue.count else {
            available += 1
            return nil
        }
        let waiter = queue[head]
        head += 1
        if head > 64 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        } else if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return waiter.continuation
    }
}

extension ReceiptVerifier {
    /// Waits for a permit to call Apple; throws CancellationError if the task is cancelled first.
    func acquirePermit() async throws {
        if permits.take() { return }
        let ticket = permits.ticket()
        // Queued before any other call runs on the actor, the cancellation handler's task included.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                permits.wait(ticket, continuation)
            }
        } onCancel: {
            Task { await self.withdraw(ticket) }
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    func releasePermit() {
        permits.release()?.resume()
    }

    /// Callers waiting for a permit to call Apple now, for tests and metrics.
    public var queuedForApple: Int { permits.queued }

    private func withdraw(_ ticket: UInt64) {
        permits.withdraw(ticket)?.resume(throwing: CancellationError())
    }
}
