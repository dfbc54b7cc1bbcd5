/// What the control API arms for the next Server API requests (a 429 with `Retry-After`, a
/// 5xx) and a tally of the requests served, so tests can count a client's retries.
public struct ServerAPIFaults: Sendable {
    public struct Fault: Sendable, Hashable {
        public var error: ServerAPIErrorAnswer
        /// For 429: `Retry-After` is this long after the request, as Apple sends it (Unix ms).
        public var retryAfterMs: Int64?
    }

    private var armed: Fault?
    private(set) var remaining = 0
    /// Requests served, by "METHOD endpoint environment status".
    private(set) var tally: [String: Int] = [:]
    private(set) var total = 0

    public init() {}

    /// The next `count` authenticated requests answer `fault` (0 disarms).
    public mutating func arm(_ fault: Fault, count: Int) {
        armed = count > 0 ? fault : nil
        remaining = max(count, 0)
    }

    /// The fault for this request, if one is armed; counts it down.
    public mutating func take() -> Fault? {
        guard remaining > 0, let armed else { return nil }
        remaining -= 1
        if remaining == 0 { self.armed = nil }
        return armed
    }

    public mutating func record(_ key: String) {
        total += 1
        tally[key, default: 0] += 1
    }
}
