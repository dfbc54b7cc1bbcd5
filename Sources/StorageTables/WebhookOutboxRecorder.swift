import EntitlementPorts
import SQLDatabase

/// One write to the webhook outbox, run by the store's writer inside its group commit.
package enum WebhookOutboxWrite: Sendable {
    case register(urls: [String], latestSequence: Int64, nowMs: Int64)
    case enqueue(messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
    case outcomes([WebhookAttemptOutcome])
}

/// What a ``WebhookOutboxWrite`` answers: rows added, or the registered endpoints' cursors.
package struct WebhookOutboxAnswer: Sendable {
    package var added = 0
    package var cursors: [String: Int64] = [:]
}

/// The outbox's SQL writes, on the writer's connection inside the writer's transaction.
package struct WebhookOutboxRecorder<DB: StorageEngine> {
    package let db: DB

    package init(db: DB) { self.db = db }

    package func apply(_ write: WebhookOutboxWrite) throws -> WebhookOutboxAnswer {
        switch write {
        case let .register(urls, latestSequence, nowMs):
            return WebhookOutboxAnswer(cursors: try register(urls, latestSequence: latestSequence, nowMs: nowMs))
        case let .enqueue(messages, through, replay, nowMs):
            return WebhookOutboxAnswer(added: try enqueue(messages, through: through, replay: replay, nowMs: nowMs))
        case let .outcomes(outcomes):
            for outcome in outcomes { try record(outcome) }
            return WebhookOutboxAnswer()
        }
    }

    private func register(_ urls: [String], latestSequence: Int64, nowMs: Int64) throws -> [String: Int64] {
        try db.execute("UPDATE webhook_endpoints SET active = 0")
        let insert = try db.prepare("""
            INSERT INTO webhook_endpoints (url, active, fed_through, created_at_ms) VALUES (?1, 1, ?2, ?3)
            ON CONFLICT (url) DO UPDATE SET active = 1
            RETURNING fed_through
            """)
        var cursors: [String: Int64] = [:]
        for url in urls {
            insert.reset()
            insert.bind(url, at: 1)
            insert.bind(latestSequence, at: 2)
            insert.bind(nowMs, at: 3)
            guard try insert.step() else { continue }
            cursors[url] = insert.int64(at: 0)
            insert.reset()
        }
        return cursors
    }

    private func enqueue(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64) throws -> Int {
        let endpoints = try db.prepare("SELECT id, fed_through FROM webhook_endpoints WHERE active = 1 ORDER BY url")
        var active: [(rowID: Int64, cursor: Int64)] = []
        while try endpoints.step() { active.append((endpoints.int64(at: 0), endpoints.int64(at: 1))) }
        endpoints.reset()
        let insert = try db.prepare("""
            INSERT INTO webhook_outbox (endpoint_rowid, sequence, change_id, user_id, body, enqueued_at_ms,
                next_attempt_at_ms)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
            """)
        var added = 0
        for endpoint in active {
            for message in messages
            where replay ? message.sequence <= endpoint.cursor : message.sequence > endpoint.cursor {
                insert.reset()
                insert.bind(endpoint.rowID, at: 1)
                insert.bind(message.sequence, at: 2)
                insert.bind(message.changeID, at: 3)
                insert.bind(message.userID, at: 4)
                insert.bind(message.body, at: 5)
                insert.bind(nowMs, at: 6)
                try insert.execute()
                added += 1
            }
        }
        if !replay {
            let advance = try db.prepare(
                "UPDATE webhook_endpoints SET fed_through = CASE WHEN fed_through > ?1 THEN fed_through ELSE ?1 END "
                    + "WHERE active = 1")
            advance.bind(through, at: 1)
            try advance.execute()
        }
        return added
    }

    private func record(_ outcome: WebhookAttemptOutcome) throws {
        let find = try db.prepare("SELECT endpoint_rowid FROM webhook_outbox WHERE id = ?1")
        find.bind(outcome.deliveryID, at: 1)
        guard try find.step() else {
            find.reset()
            return  // already recorded (a duplicate outcome): nothing to do
        }
        let endpoint = find.int64(at: 0)
        find.reset()
        switch outcome.result {
        case .delivered:
            try run("DELETE FROM webhook_outbox WHERE id = ?1", outcome.deliveryID)
            try run("UPDATE webhook_endpoints SET delivered = delivered + 1 WHERE id = ?1", endpoint)
        case let .retry(next, error):
            let update = try db.prepare("""
                UPDATE webhook_outbox SET attempts = attempts + 1, next_attempt_at_ms = ?2,
                    first_attempt_at_ms = CASE first_attempt_at_ms WHEN 0 THEN ?3 ELSE first_attempt_at_ms END
                WHERE id = ?1
                """)
            update.bind(outcome.deliveryID, at: 1)
            update.bind(next, at: 2)
            update.bind(outcome.attemptedAtMs, at: 3)
            try update.execute()
            try failed(endpoint, error: error, atMs: outcome.attemptedAtMs, deadLetter: false)
        case let .deadLettered(error):
            let move = try db.prepare("""
                INSERT INTO webhook_dead_letters (id, endpoint_rowid, sequence, change_id, user_id, body,
                    enqueued_at_ms, attempts, first_attempt_at_ms, dead_at_ms, last_error)
                SELECT id, endpoint_rowid, sequence, change_id, user_id, body, enqueued_at_ms, attempts + 1,
                    CASE first_attempt_at_ms WHEN 0 THEN ?2 ELSE first_attempt_at_ms END, ?2, ?3
                FROM webhook_outbox WHERE id = ?1
                """)
            move.bind(outcome.deliveryID, at: 1)
            move.bind(outcome.attemptedAtMs, at: 2)
            move.bind(error, at: 3)
            try move.execute()
            try run("DELETE FROM webhook_outbox WHERE id = ?1", outcome.deliveryID)
            try failed(endpoint, error: error, atMs: outcome.attemptedAtMs, deadLetter: true)
        }
    }

    private func failed(_ endpoint: Int64, error: String, atMs: Int64, deadLetter: Bool) throws {
        let update = try db.prepare("""
            UPDATE webhook_endpoints SET failed_attempts = failed_attempts + 1,
                dead_letters = dead_letters + ?2, last_error = ?3, last_error_at_ms = ?4
            WHERE id = ?1
            """)
        update.bind(endpoint, at: 1)
        update.bind(deadLetter ? 1 : 0, at: 2)
        update.bind(error, at: 3)
        update.bind(atMs, at: 4)
        try update.execute()
    }

    private func run(_ sql: String, _ id: Int64) throws {
        let statement = try db.prepare(sql)
        statement.bind(id, at: 1)
        try statement.execute()
    }
}
