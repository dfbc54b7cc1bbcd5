import Glibc

/// Unix time in milliseconds from CLOCK_REALTIME: one vDSO call, no Foundation on the hot path.
public func unixMillisecondsNow() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}
