import AppStore
@testable import EntitlementService
import Entitlements
import Foundation
import Synchronization

/// The service's collaborators for tests: a fixed clock, sleeps that only record what the
/// verifier asked for (so backoff costs no time and is checked exactly), and a verifier wired
/// to a ``ScriptedApple``.
enum Harness {
    static let now: Int64 = 1_750_000_000_000
    static let clock: @Sendable () -> Int64 = { now }

    /// Records every backoff the verifier requests instead of sleeping.
    final class Sleeps: Sendable {
        private let requested = Mutex<[Duration]>([])
        var durations: [Duration] { requested.withLock { $0 } }

        var sleep: @Sendable (Duration) async throws -> Void {
            { [self] duration in
                requested.withLock { $0.append(duration) }
                try Task.checkCancellation()
            }
        }
    }

    static func verifierConfiguration(
        maxAttempts: Int = 4, malformedRetries: Int = 2, initialBackoff: Duration = .milliseconds(100),
        maxBackoff: Duration = .seconds(2), bundleID: String? = nil
    ) -> ReceiptVerifier.Configuration {
        ReceiptVerifier.Configuration(
            productionURL: ScriptedApple.production, sandboxURL: ScriptedApple.sandbox,
            sharedSecret: "shared-secret", bundleID: bundleID, maxConcurrency: 8, maxAttempts: maxAttempts,
            malformedRetries: malformedRetries, initialBackoff: initialBackoff, maxBackoff: maxBackoff)
    }

    static func verifier(
        _ apple: ScriptedApple, _ configuration: ReceiptVerifier.Configuration = verifierConfiguration(),
        sleeps: Sleeps = Sleeps()
    ) -> ReceiptVerifier {
        ReceiptVerifier(configuration: configuration, client: apple, now: clock, sleep: sleeps.sleep)
    }

    /// A valid verifyReceipt answer for one subscription chain.
    static func validReceipt(
        chain: String = "1000", environment: Environment = .production, bundleID: String? = "com.example.app"
    ) -> VerifyReceiptResponse {
        let transaction = Transaction(
            transactionID: chain, originalTransactionID: chain, productID: "com.example.monthly",
            purchaseDateMs: now - 86_400_000, expiresDateMs: now + 29 * 86_400_000,
            subscriptionGroupIdentifier: "group", environment: environment)
        return VerifyReceiptResponse(status: 0, environment: environment, bundleID: bundleID,
                                     transactions: [transaction])
    }
}

/// Waits until `condition` holds, polling; fails after 30 s of polling. A correctness wait,
/// never a performance assertion.
///
/// The bound counts the time between polls only up to ``PollBudget/longestCountedGap`` per
/// poll. Swift Testing runs suites in parallel on the cooperative pool (one thread per core):
/// when other suites keep it busy for a while, neither this poll nor the tasks it waits for
/// run, and a wall-clock deadline used to expire during that stall, so the first poll after it
/// failed before the awaited tasks had had their turn.
func eventually(_ what: String, _ condition: () -> Bool) async throws {
    var budget = PollBudget(.seconds(30))
    while !condition() {
        guard budget.spend() else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// ``eventually(_:_:)`` for a condition that asks an actor.
func eventually(_ what: String, _ condition: () async -> Bool) async throws {
    var budget = PollBudget(.seconds(30))
    while !(await condition()) {
        guard budget.spend() else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Polling time left, spent by the gap since the last poll up to ``longestCountedGap``: a longer
/// gap is the process being starved, not the awaited condition failing.
struct PollBudget {
    static let longestCountedGap: Duration = .milliseconds(100)
    private var remaining: Duration
    private var lastPoll = ContinuousClock.now

    init(_ total: Duration) { remaining = total }

    /// Spends the time since the last poll; false once the budget is used up.
    mutating func spend() -> Bool {
        let now = ContinuousClock.now
        remaining -= min(now - lastPoll, Self.longestCountedGap)
        lastPoll = now
        return remaining > .zero
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting: \(what)" }
}
