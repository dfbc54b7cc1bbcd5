import Synchronization

/// A one-shot event: closed until ``open()``, open for good afterwards.
///
/// The lifecycle's hand-off between threads and tasks: a signal handler (on the signal
/// watcher's thread) opens the daemon's shutdown latch, the thread that joined a server's
/// event loops opens its "stopped" latch, and async code waits without blocking a thread of
/// the cooperative pool. Blocking code (tools, tests) can wait too.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// Only for ``waitBlocking()``: a condition variable to sleep on.
    private let blocking = ConditionLock()

    public init() {}

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the latch and resumes every waiter; later calls do nothing. Safe from any thread.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        blocking.withLock { blocking.broadcast() }
    }

    /// Returns once the latch is open (at once if it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state -> Bool in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Blocks the calling thread until the latch is open; never call it from async code.
    public func waitBlocking() {
        blocking.withLock {
            while !isOpen { blocking.wait() }
        }
    }
}
