/// A token bucket: `rate` requests a second on average, bursts up to `capacity`.
///
/// A value type with the clock passed in, so the tests drive it with made-up instants.
/// ``ServerAPIAccess`` owns the client's and reserves a token per request: ``reserve(atNs:)`` returns
/// how long that request must wait, and the reservation is made at once, so concurrent callers
/// queue up behind each other instead of all waking at the same instant.
public struct TokenBucket: Sendable {
    public let rate: Double
    public let capacity: Double
    private var tokens: Double
    private var updatedNs: Int64

    public init(rate: Double, capacity: Double? = nil, nowNs: Int64) {
        precondition(rate > 0, "a token bucket needs a positive rate")
        self.rate = rate
        self.capacity = max(1, capacity ?? rate)
        tokens = self.capacity
        updatedNs = nowNs
    }

    /// Takes one token and returns the nanoseconds to wait before using it (0: go now).
    public mutating func reserve(atNs nowNs: Int64) -> Int64 {
        if nowNs > updatedNs {
            tokens = min(capacity, tokens + Double(nowNs - updatedNs) * rate / 1e9)
            updatedNs = nowNs
        }
        tokens -= 1
        guard tokens < 0 else { return 0 }
        return Int64((-tokens / rate * 1e9).rounded(.up))
    }

    /// Gives back a reservation that was not used (the caller's deadline came first).
    public mutating func cancelReservation() {
        tokens = min(capacity, tokens + 1)
    }
}
