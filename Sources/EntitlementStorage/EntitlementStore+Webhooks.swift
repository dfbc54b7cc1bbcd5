import EntitlementPorts

/// The SQLite ``WebhookOutbox``: writes share the writer's group commit with facts writes (a
/// batch of delivery outcomes is one job, never one transaction per delivery), reads use the
/// read connections and never wait for the writer.
extension EntitlementStore: WebhookOutbox {
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
