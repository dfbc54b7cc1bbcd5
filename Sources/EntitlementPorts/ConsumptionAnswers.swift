import Entitlements

/// Apple's refund questions and the answers the service owes: the durable queue that makes
/// "answered once, within 12 hours, even across a restart" hold.
///
/// One row per transaction id holds Apple's request (if any), the app's data (if any) and
/// the answer's progress, so whichever arrives first waits for the other. Every call is durable
/// when it returns; both SQL engines implement it, and the contract suite runs against them.
public protocol ConsumptionAnswers: Sendable {
    /// Records Apple's request; the first request for a transaction stands (Apple redelivers).
    func recordConsumptionRequest(_ request: ConsumptionRequest) async throws

    /// Records (replaces) what the app says the customer used.
    func recordConsumptionData(_ data: ConsumptionData) async throws

    /// Requests neither answered nor given up on whose next attempt is due at `nowMs`, with
    /// their data (nil when none has been recorded), oldest request first, at most `limit`.
    func dueConsumptionAnswers(nowMs: Int64, limit: Int) async throws -> [ConsumptionAnswerTask]

    /// Records what became of an attempt to answer `transactionID`.
    func recordConsumptionOutcome(_ outcome: ConsumptionOutcome, transactionID: String, atMs: Int64) async throws
}

/// A request waiting for its answer.
public struct ConsumptionAnswerTask: Sendable, Hashable {
    public var request: ConsumptionRequest
    public var data: ConsumptionData?
    /// Attempts made so far (failed ones: a sent answer leaves the queue).
    public var attempts: Int

    public init(request: ConsumptionRequest, data: ConsumptionData?, attempts: Int) {
        self.request = request
        self.data = data
        self.attempts = attempts
    }
}

/// What one look at a request decided; every case but ``retry`` takes it off the queue for good.
public enum ConsumptionOutcome: Sendable, Hashable {
    /// Apple took the answer (202).
    case sent
    /// Apple refused it (400, ...), with its reason: never sent again.
    case rejected(reason: String)
    /// Apple's 12 hours passed without an answer we could send.
    case expired
    /// Apple could not take it now (5xx, 429, no answer); look again at `nextAttemptAtMs`.
    case retry(nextAttemptAtMs: Int64, reason: String)

    /// The state the row keeps: `sent`, `rejected`, `expired`; nil while it stays queued.
    public var finalState: String? {
        switch self {
        case .sent: "sent"
        case .rejected: "rejected"
        case .expired: "expired"
        case .retry: nil
        }
    }
}
