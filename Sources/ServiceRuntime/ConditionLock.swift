import Glibc

/// A pthread mutex with one condition variable, for a thread that sleeps until work is queued
/// (the store's writer).
///
/// Synchronization.Mutex, the lock everywhere else, has no condition variable, and an idle
/// writer must sleep, not spin. The pthread objects live on the heap because they must never move.
public final class ConditionLock: @unchecked Sendable {
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    @inlinable public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until signalled; call only while holding the lock (inside ``withLock(_:)``).
    @inlinable public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Sleeps until signalled or until `milliseconds` have passed (by the realtime clock, the
    /// condition variable's); `false` on timeout. Call only while holding the lock. Like
    /// ``wait()`` it may wake early: callers recheck their condition and their deadline.
    public func wait(milliseconds: Int64) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int64(deadline.tv_nsec) + (milliseconds % 1_000) * 1_000_000
        deadline.tv_sec += Int(milliseconds / 1_000 + nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// Wakes one thread sleeping in ``wait()``.
    @inlinable public func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every thread sleeping in ``wait()``.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
