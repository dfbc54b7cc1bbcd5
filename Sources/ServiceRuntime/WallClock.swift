import Glibc

/// The one clock the service stores and compares times with: Unix milliseconds.
///
/// Every component that needs the time takes it as a `UnixClock` (a `now:` or `clock:`
/// argument), never reads it itself, so tests pin or advance time without sleeping; the
/// composition root passes ``WallClock/unixMilliseconds()``.
public typealias UnixClock = @Sendable () -> Int64

/// The real ``UnixClock``.
public enum WallClock {
    /// CLOCK_REALTIME in milliseconds: one vDSO call, no Foundation on the hot path.
    @Sendable public static func unixMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
