/// Duration in the units the C and Foundation APIs, metrics and the wire want.
///
/// `Duration` keeps (seconds, attoseconds); converting by hand was written a dozen times with
/// different roundings. These say which rounding each caller gets.
extension Duration {
    /// Seconds as a Double: metrics, Foundation timeouts, printed figures.
    @inlinable public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Milliseconds as a Double, for figures finer than whole milliseconds.
    @inlinable public var inFractionalMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// Whole milliseconds, truncated toward zero: stored durations such as a cache TTL.
    @inlinable public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole milliseconds, rounded up: a wait of 0.4 ms must not become a busy 0 ms poll.
    @inlinable public var inMillisecondsRoundedUp: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// Whole nanoseconds, truncated, saturating at Int64.max instead of trapping (~292 years).
    @inlinable public var inNanosecondsSaturating: Int64 {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return seconds < 0 ? .min : .max }
        let total = nanoseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        return total.overflow ? .max : total.partialValue
    }
}
