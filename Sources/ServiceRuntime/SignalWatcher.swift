import Glibc
import Synchronization

/// Delivers SIGTERM, SIGINT and SIGHUP to callbacks on one dedicated thread, losing none.
///
/// ``blockHandledSignals()`` must run first thing in `main`, before any other thread exists:
/// threads inherit the blocked mask, so from then on these signals stay pending (never
/// killing the process, never dropped) until the watcher thread takes them with `sigwait`.
/// A signal that arrives before the handlers are registered is therefore handled as soon as
/// they are, instead of killing a half-started server or vanishing.
public final class SignalWatcher: Sendable {
    public static let handled: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    private let handlers = Mutex<[Int32: @Sendable () -> Void]>([:])

    public init() {}

    /// Blocks the handled signals for this thread and every thread started after it.
    public static func blockHandledSignals() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return set
    }

    /// Registers `handler` for `signalNumber` (one of ``handled``); the last one registered wins.
    public func on(_ signalNumber: Int32, _ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0[signalNumber] = handler }
    }

    /// Waits for signals on the calling thread and runs their handlers, for the life of the
    /// process. A signal without a handler is ignored (SIGHUP with nothing to reload must not
    /// kill the service).
    public func run() -> Never {
        var set = SignalWatcher.signalSet()
        while true {
            var received: Int32 = 0
            guard sigwait(&set, &received) == 0 else { continue }
            let handler = handlers.withLock { $0[received] }
            handler?()
        }
    }

    /// ``run()`` on a thread of its own, for programs whose main thread has other work.
    public func start() {
        ServiceThread.detach { self.run() }
    }
}
