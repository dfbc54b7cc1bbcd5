import EntitlementPorts
import Entitlements

/// The rest of the port, forwarded to ``StoreCore`` exactly as ``EntitlementStore`` does.
extension PostgresEntitlementStore: EntitlementChangeLog, EntitlementChangeUpkeep {
    public func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        try core.changes(after: sequence, userID: userID, limit: limit)
    }

    public func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try core.changeLogBounds()
    }

    /// `observer` runs on the writer thread after this replica's commits that appended changes,
    /// and on the listener thread after other replicas' (and after a LISTEN reconnect).
    public func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        core.onChangesCommitted(observer)
    }

    public func recordDueChanges() async throws -> Int {
        try await core.recordDueChanges()
    }

    public func nextDueInstant() throws -> Int64? {
        try core.nextDueInstant()
    }

    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int {
        try await core.pruneChanges(occurredBefore: cutoffMs, limit: limit)
    }
}

extension PostgresEntitlementStore: WebhookOutbox {
    public func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64] {
        try await core.writeOutbox(.register(urls: urls, latestSequence: latestSequence, nowMs: nowMs)).cursors
    }

    public func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
        async throws -> Int {
        try await core.writeOutbox(.enqueue(messages: messages, through: through, replay: replay, nowMs: nowMs)).added
    }

    public func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        _ = try await core.writeOutbox(.outcomes(outcomes))
    }

    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery] {
        try core.dueWebhookDeliveries(endpoint: endpoint, nowMs: nowMs, limit: limit)
    }

    public func webhookStatus() throws -> [WebhookEndpointStatus] {
        try core.webhookStatus()
    }
}

extension PostgresEntitlementStore: ReconciliationProgress, TransactionHistoryRevisions {
    public func reconciledThrough(_ environment: Environment) async throws -> Int64? {
        try await core.reconciledThrough(environment)
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws {
        try await core.recordReconciled(environment, through: unixMs)
    }

    public func historyRevision(originalTransactionID: String) async throws -> String? {
        try await core.historyRevision(originalTransactionID: originalTransactionID)
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws {
        try await core.recordHistoryRevision(revision, originalTransactionID: originalTransactionID)
    }
}
