import EntitlementPorts
import SQLDatabase

/// The webhook outbox's reads, on a read connection (never the writer's).
extension StoreReader {

    package func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery] {
        let query = try db.prepare(WebhookReadSQL.dueSQL)
        defer { query.reset() }
        query.bind(endpoint, at: 3)
        query.bind(nowMs, at: 1)
        query.bind(limit, at: 2)
        var due: [WebhookDelivery] = []
        while try query.step() {
            let message = WebhookMessage(sequence: query.int64(at: 2), changeID: query.string(at: 3),
                                         userID: query.string(at: 4), body: query.string(at: 5))
            due.append(WebhookDelivery(
                id: query.int64(at: 0), endpoint: query.string(at: 1), message: message,
                enqueuedAtMs: query.int64(at: 6), attempts: Int(query.int64(at: 7)),
                firstAttemptAtMs: query.int64(at: 8), nextAttemptAtMs: query.int64(at: 9)))
        }
        return due
    }

    package func webhookStatus() throws -> [WebhookEndpointStatus] {
        try db.transaction(beginning: DB.beginSnapshotRead) {
            let query = try db.prepare(WebhookReadSQL.statusSQL)
            defer { query.reset() }
            var statuses: [WebhookEndpointStatus] = []
            while try query.step() {
                statuses.append(WebhookEndpointStatus(
                    endpoint: query.string(at: 0), active: query.bool(at: 1), cursor: query.int64(at: 2),
                    pending: Int(query.int64(at: 8)), oldestPendingEnqueuedAtMs: query.int64(at: 9),
                    delivered: query.int64(at: 3), failedAttempts: query.int64(at: 4),
                    deadLetters: query.int64(at: 5), lastError: query.string(at: 6),
                    lastErrorAtMs: query.int64(at: 7)))
            }
            return statuses
        }
    }
}

/// The outbox's read SQL (a generic type cannot hold static stored properties).
package enum WebhookReadSQL {
    // Each (endpoint, user)'s oldest row (per-user order), then only those due.
    package static let dueSQL = """
        SELECT o.id, e.url, o.sequence, o.change_id, o.user_id, o.body, o.enqueued_at_ms, o.attempts,
            o.first_attempt_at_ms, o.next_attempt_at_ms
        FROM webhook_endpoints e
        CROSS JOIN (SELECT min(id) AS id FROM webhook_outbox
              WHERE endpoint_rowid = (SELECT id FROM webhook_endpoints WHERE url = ?3)
              GROUP BY user_id) AS head
        JOIN webhook_outbox o ON o.id = head.id AND o.endpoint_rowid = e.id
        WHERE e.url = ?3 AND e.active = 1 AND o.next_attempt_at_ms <= ?1
        ORDER BY o.next_attempt_at_ms, o.id
        LIMIT ?2
        """
    package static let statusSQL = """
        SELECT e.url, e.active, e.fed_through, e.delivered, e.failed_attempts, e.dead_letters, e.last_error,
            e.last_error_at_ms,
            (SELECT count(*) FROM webhook_outbox o WHERE o.endpoint_rowid = e.id),
            (SELECT coalesce(min(o.enqueued_at_ms), 0) FROM webhook_outbox o WHERE o.endpoint_rowid = e.id)
        FROM webhook_endpoints e ORDER BY e.url
        """
}
