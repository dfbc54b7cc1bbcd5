import EntitlementPorts
import SQLite

/// The SQLite ``WebhookOutbox``: writes share the writer's group commit with facts writes (a
/// batch of delivery outcomes is one job, never one transaction per delivery), reads use the
/// read connections and never wait for the writer.
extension EntitlementStore: WebhookOutbox {
    public func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64] {
        try await writeOutbox(.register(urls: urls, latestSequence: latestSequence, nowMs: nowMs)).cursors
    }

    public func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
        async throws -> Int {
        try await writeOutbox(.enqueue(messages: messages, through: through, replay: replay, nowMs: nowMs)).added
    }

    public func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        _ = try await writeOutbox(.outcomes(outcomes))
    }

    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery] {
        try readOutbox("reading due webhook deliveries") {
            try $0.dueWebhookDeliveries(endpoint: endpoint, nowMs: nowMs, limit: limit)
        }
    }

    public func webhookStatus() throws -> [WebhookEndpointStatus] {
        try readOutbox("reading webhook status") { try $0.webhookStatus() }
    }

    private func writeOutbox(_ write: WebhookOutboxWrite) async throws -> WebhookOutboxAnswer {
        try await withCheckedThrowingContinuation { continuation in
            if !queue.enqueue(.webhooks(write, continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }
}

extension EntitlementStore {
    fileprivate func readOutbox<T>(_ what: String, _ body: (StoreReader<Connection>) throws -> T) throws -> T {
        try readers.withReader { reader in
            do {
                return try body(reader)
            } catch {
                throw StoreError.storage(error, what)
            }
        }
    }
}
