import Synchronization

/// Limits failed sign-ins: after `limit` failures within `windowMs` from one client, sign-in
/// is refused (429) until the oldest failure leaves the window.
///
/// Counting failures only, so people signing in correctly never hit it. Checked before the
/// token is, so a guesser gets no answer at all while throttled. The client is the address a
/// trusted proxy forwards, or one shared key when there is none: the admin listener sees no
/// peer address of its own, and a private port shared by a few operators can afford a minute's
/// lockout more than an unbounded guessing rate.
public final class SignInThrottle: Sendable {
    private let failures: Mutex<[String: [Int64]]>
    private let limit: Int
    private let windowMs: Int64
    private let now: @Sendable () -> Int64

    public init(limit: Int = 5, windowMs: Int64 = 60_000, now: @escaping @Sendable () -> Int64) {
        precondition(limit > 0 && windowMs > 0)
        failures = Mutex([:])
        self.limit = limit
        self.windowMs = windowMs
        self.now = now
    }

    /// Seconds until `client` may try again; nil when it may try now.
    public func retryAfterSeconds(client: String) -> Int64? {
        let at = now()
        return failures.withLock { table in
            let recent = (table[client] ?? []).filter { $0 > at - windowMs }
            table[client] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, (oldest + windowMs - at + 999) / 1000)
        }
    }

    public func recordFailure(client: String) {
        let at = now()
        failures.withLock { table in
            var recent = (table[client] ?? []).filter { $0 > at - windowMs }
            recent.append(at)
            // Only the last `limit` matter; a client past its limit cannot grow its entry.
            table[client] = Array(recent.suffix(limit))
            if table.count > 10_000 { table = table.filter { $0.value.last ?? 0 > at - windowMs } }
        }
    }
}
