#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the dedicated OS thread that runs the store's blocking SQLite writes.
///
/// A plain pthread, not a Task: SQLite's fsync blocks for milliseconds on real disks, and a
/// blocked thread of Swift's cooperative pool (one per core) would stall unrelated work.
enum WriterThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Glibc does not import pthread_setname_np (it needs _GNU_SOURCE), so the thread is unnamed.
    static func start(_ run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { argument in
            let body = Unmanaged<Body>.fromOpaque(argument!).takeRetainedValue()
            body.run()
            return nil
        }, body)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(thread)
    }
}
