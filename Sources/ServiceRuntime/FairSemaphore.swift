import Synchronization

/// A counting semaphore for async code that admits waiters first come, first served.
///
/// Bounds how many requests go to a slow dependency at once (Apple's verifyReceipt) while a
/// burst queues behind them. A waiter whose task is cancelled (its RPC went away or hit its
/// deadline) leaves the queue at once and takes no permit.
public final class FairSemaphore: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var nextID: UInt64 = 0
        var queue: [Waiter] = []
        var head = 0
    }

    private let state: Mutex<State>

    public init(permits: Int) {
        state = Mutex(State(available: max(1, permits)))
    }

    /// Callers waiting for a permit now.
    public var queued: Int { state.withLock { $0.queue.count - $0.head } }

    /// Waits for a permit; throws CancellationError if the task is cancelled first.
    public func acquire() async throws {
        let id: UInt64? = state.withLock { state in
            if state.available > 0 && state.queue.count == state.head {
                state.available -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.queue.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let removed = state.withLock { state -> Waiter? in
                guard let index = state.queue[state.head...].firstIndex(where: { $0.id == id }) else { return nil }
                return state.queue.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    public func release() {
        let next = state.withLock { state -> Waiter? in
            if state.head < state.queue.count {
                let waiter = state.queue[state.head]
                state.head += 1
                if state.head > 64 && state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return waiter
            }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }

    /// Runs `body` holding a permit.
    public func withPermit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }
}
