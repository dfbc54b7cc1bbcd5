/// The durable webhook outbox: what is still to be POSTed to which endpoint.
///
/// The feeder copies each change of the change log into one row per endpoint, with the body
/// frozen at that moment, and advances the endpoint's cursor in the same transaction
/// (``enqueueWebhooks(_:through:replay:nowMs:)``): a crash before the commit leaves both
/// untouched and the changes are fed again, a crash after it leaves both done, so no change is
/// lost or skipped. Because each row carries its own body, pruning the change log never takes
/// an undelivered webhook with it. Delivery outcomes are recorded in batches
/// (``recordWebhookOutcomes(_:)``); a delivered row is removed, a dead-lettered one moves to
/// the dead letters. Every error thrown is a ``StoreError``.
///
/// Reads are synchronous and cheap (the dispatcher polls them); writes go through the store's
/// writer and return once durable.
public protocol WebhookOutbox: Sendable {
    /// Makes `urls` the endpoints changes are fed to; an endpoint seen for the first time starts
    /// after `latestSequence` (it receives changes from now on; `replay` backfills), one seen
    /// before resumes at its cursor. Endpoints not listed keep their rows but get nothing new
    /// and are not delivered to until listed again. Returns each listed endpoint's cursor.
    func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64]

    /// Stores one row per active endpoint for each message after that endpoint's cursor and
    /// moves every active endpoint's cursor to at least `through`, in one transaction.
    ///
    /// With `replay`, the messages are instead enqueued for each active endpoint up to its
    /// cursor (later ones reach it through the feed) and no cursor moves: a replayed change is
    /// delivered again with the same Webhook-Id. Returns how many rows were added.
    @discardableResult
    func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64) async throws
        -> Int

    /// `endpoint`'s rows whose turn it is: the oldest row of each user with
    /// `nextAttemptAtMs <= nowMs`, soonest due first, at most `limit`. A later row of a user
    /// waits until the earlier one is delivered or dead-lettered. Per endpoint, so a dead
    /// endpoint's backlog never crowds out a healthy one's.
    func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery]

    /// Records the outcomes of delivery attempts (one transaction for the batch).
    func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws

    /// Per endpoint: cursor, pending rows, oldest pending row, counters, last error.
    func webhookStatus() throws -> [WebhookEndpointStatus]
}

/// One change as a webhook: its identity and its JSON body, frozen when enqueued.
public struct WebhookMessage: Sendable, Hashable {
    public var sequence: Int64
    /// The Webhook-Id header (= change_id): receivers deduplicate on it.
    public var changeID: String
    /// Deliveries of one user's messages are ordered; other users' do not wait.
    public var userID: String
    public var body: String

    public init(sequence: Int64, changeID: String, userID: String, body: String) {
        self.sequence = sequence
        self.changeID = changeID
        self.userID = userID
        self.body = body
    }
}

/// One outbox row: a message for one endpoint and where its delivery stands.
public struct WebhookDelivery: Sendable, Hashable {
    public var id: Int64
    public var endpoint: String
    public var message: WebhookMessage
    public var enqueuedAtMs: Int64
    /// Attempts made so far (each failed: a delivered row leaves the outbox).
    public var attempts: Int
    /// When the first attempt was made; 0 before it. The retry window counts from here.
    public var firstAttemptAtMs: Int64
    public var nextAttemptAtMs: Int64

    public init(id: Int64, endpoint: String, message: WebhookMessage, enqueuedAtMs: Int64,
                attempts: Int, firstAttemptAtMs: Int64, nextAttemptAtMs: Int64) {
        self.id = id
        self.endpoint = endpoint
        self.message = message
        self.enqueuedAtMs = enqueuedAtMs
        self.attempts = attempts
        self.firstAttemptAtMs = firstAttemptAtMs
        self.nextAttemptAtMs = nextAttemptAtMs
    }
}

/// What one delivery attempt came to.
public struct WebhookAttemptOutcome: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        /// A 2xx answer: the row leaves the outbox.
        case delivered
        /// Try again at `nextAttemptAtMs`.
        case retry(nextAttemptAtMs: Int64, error: String)
        /// Out of retries: the row moves to the dead letters.
        case deadLettered(error: String)
    }

    public var deliveryID: Int64
    public var attemptedAtMs: Int64
    public var result: Result

    public init(deliveryID: Int64, attemptedAtMs: Int64, result: Result) {
        self.deliveryID = deliveryID
        self.attemptedAtMs = attemptedAtMs
        self.result = result
    }
}

/// One endpoint's delivery state, for `entitlementctl webhooks status` and the metrics.
public struct WebhookEndpointStatus: Sendable, Hashable {
    public var endpoint: String
    /// Listed in the current configuration (others keep their rows, undelivered).
    public var active: Bool
    /// The last change sequence fed to this endpoint.
    public var cursor: Int64
    public var pending: Int
    /// When the oldest undelivered row was enqueued; 0 when none is pending.
    public var oldestPendingEnqueuedAtMs: Int64
    public var delivered: Int64
    public var failedAttempts: Int64
    public var deadLetters: Int64
    public var lastError: String
    public var lastErrorAtMs: Int64

    public init(endpoint: String, active: Bool, cursor: Int64, pending: Int = 0, oldestPendingEnqueuedAtMs: Int64 = 0,
                delivered: Int64 = 0, failedAttempts: Int64 = 0, deadLetters: Int64 = 0, lastError: String = "",
                lastErrorAtMs: Int64 = 0) {
        self.endpoint = endpoint
        self.active = active
        self.cursor = cursor
        self.pending = pending
        self.oldestPendingEnqueuedAtMs = oldestPendingEnqueuedAtMs
        self.delivered = delivered
        self.failedAttempts = failedAttempts
        self.deadLetters = deadLetters
        self.lastError = lastError
        self.lastErrorAtMs = lastErrorAtMs
    }
}
