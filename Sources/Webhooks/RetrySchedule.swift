/// When a failed webhook delivery is tried again, and when it is given up (dead-lettered).
///
/// Exponential backoff with jitter: the n-th failure waits `initial * 2^(n-1)`, capped at
/// `maximum`, stretched by a random factor in [1, 1 + jitter) and capped again, so the wait is
/// always within [initial, maximum] (1 s .. 1 h by default) and endpoints recovering together
/// are not hit by every queued retry in the same second. Retries go on while the first attempt
/// is less than `window` old (3 days), then the delivery is dead-lettered: at the defaults that
/// is 12 tries in the first ~1.5 hours, then about one an hour, ~80 in all.
public struct RetrySchedule: Sendable, Hashable {
    public var initialMs: Int64
    public var maximumMs: Int64
    public var windowMs: Int64
    /// The random stretch of each wait, as a fraction (0.25 = up to 25 % longer).
    public var jitter: Double

    /// The production schedule: 1 s doubling to 1 h, for 3 days.
    public static let standard = RetrySchedule(initialMs: 1_000, maximumMs: 3_600_000, windowMs: 3 * 86_400_000)

    public init(initialMs: Int64, maximumMs: Int64, windowMs: Int64, jitter: Double = 0.25) {
        self.initialMs = max(1, initialMs)
        self.maximumMs = max(self.initialMs, maximumMs)
        self.windowMs = max(0, windowMs)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait after the `failures`-th failed attempt (1-based), for `random` in [0, 1).
    public func delayMs(afterFailures failures: Int, random: Double) -> Int64 {
        let doublings = min(max(failures - 1, 0), 62)
        var base = initialMs
        for _ in 0..<doublings where base < maximumMs { base = min(maximumMs, base * 2) }
        let stretched = Double(base) * (1 + jitter * min(max(random, 0), 1))
        return min(maximumMs, max(initialMs, Int64(stretched)))
    }

    /// What to do after an attempt at `nowMs` failed, given the delivery's history so far.
    ///
    /// `firstAttemptAtMs` is 0 when this failed attempt was the first. Returns the instant of
    /// the next try, or nil when the window is spent and the delivery is dead-lettered.
    public func nextAttemptAtMs(failedAtMs nowMs: Int64, firstAttemptAtMs: Int64, failures: Int,
                                random: Double) -> Int64? {
        let first = firstAttemptAtMs == 0 ? nowMs : firstAttemptAtMs
        guard nowMs - first < windowMs else { return nil }
        return nowMs + delayMs(afterFailures: failures, random: random)
    }
}
