import Glibc

/// A dedicated OS thread for work that blocks or loops forever: the event loops (epoll_wait),
/// the store's writer (SQLite's fsync) and the signal watcher (sigwait).
///
/// Not a Task: a blocked thread of Swift's cooperative pool (one per core) would stall
/// unrelated work. The one place in the service that calls pthread_create.
public struct ServiceThread: Sendable {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread; threads inherit the caller's signal mask.
    ///
    /// `body` need not be Sendable: it moves to the new thread and is never touched here again.
    /// Glibc does not import pthread_setname_np (it needs _GNU_SOURCE), so threads are unnamed.
    public static func start(_ body: @escaping () -> Void) -> ServiceThread {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            let body = Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc) (out of threads or memory)")
        return ServiceThread(thread: thread)
    }

    /// Starts `body` on a thread nobody joins; its resources go when it returns.
    public static func detach(_ body: @escaping () -> Void) {
        pthread_detach(start(body).thread)
    }

    /// Blocks until the thread's body returns; call once, and never from the thread itself.
    public func join() {
        pthread_join(thread, nil)
    }
}
