internal import Glibc

/// Waits until `condition` holds, polling; throws ``WaitTimedOut`` once `budget` of polling
/// has passed. A correctness wait for work another thread or task does, never a performance
/// assertion, and never a way to let time pass: code that reads a clock gets a
/// ``ManualClock`` instead.
///
/// The budget counts the time between polls only up to ``PollBudget/longestCountedGap`` per
/// poll. Swift Testing runs suites in parallel on the cooperative pool (one thread per core):
/// while other suites keep it busy, neither this poll nor the work it waits for runs, and a
/// wall-clock deadline used to expire during such a stall, failing a test whose work had not
/// yet had its turn. Polls start at 1 ms apart and back off to 20 ms.
public func eventually(
    _ what: String, within budget: Duration = .seconds(60), _ condition: () throws -> Bool
) async throws {
    var budget = PollBudget(budget)
    while try !condition() {
        guard budget.spend() else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: budget.nextInterval())
    }
}

/// ``eventually(_:within:_:)`` for a thread that cannot await (a synchronous test, a handler
/// on a loop thread): the same budget, the thread blocked between polls.
public func eventuallyBlocking(
    _ what: String, within budget: Duration = .seconds(60), _ condition: () throws -> Bool
) throws {
    var budget = PollBudget(budget)
    while try !condition() {
        guard budget.spend() else { throw WaitTimedOut(what: what) }
        usleep(UInt32(budget.nextInterval().inMicroseconds))
    }
}

/// What ``eventually(_:within:_:)`` throws: the condition never held.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "gave up waiting: \(what)" }
}

/// Polling time left, spent by the gap since the last poll up to ``longestCountedGap``: a
/// longer gap is the process being starved, not the awaited condition failing.
struct PollBudget {
    static let longestCountedGap: Duration = .milliseconds(100)
    static let longestInterval: Duration = .milliseconds(20)
    private var remaining: Duration
    private var lastPoll = ContinuousClock.now
    private var interval: Duration = .milliseconds(1)

    init(_ total: Duration) { remaining = total }

    /// Spends the time since the last poll; false once the budget is used up.
    mutating func spend() -> Bool {
        let now = ContinuousClock.now
        remaining -= min(now - lastPoll, Self.longestCountedGap)
        lastPoll = now
        return remaining > .zero
    }

    /// How long to wait before the next poll: doubling from 1 ms, so a quick condition costs
    /// little latency and a slow one little CPU.
    mutating func nextInterval() -> Duration {
        defer { interval = min(interval * 2, Self.longestInterval) }
        return interval
    }
}

extension Duration {
    fileprivate var inMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
