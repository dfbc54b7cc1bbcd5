import SQLite
import StorageCore

extension Schema {
    /// The webhook outbox: endpoints with their feed cursor and counters, one row per
    /// (endpoint, change) still to deliver, and the dead letters.
    ///
    /// Each row holds its own body, frozen at enqueue, so the change log can be pruned without
    /// losing an undelivered webhook. Per-user order is by row id (enqueue order); the index
    /// finds each (endpoint, user)'s oldest row, the only one that may be attempted.
    package static let webhookOutboxMigration = Migration("create_webhook_outbox", sql: """
        CREATE TABLE webhook_endpoints (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE,
            active INTEGER NOT NULL,
            fed_through INTEGER NOT NULL,
            delivered INTEGER NOT NULL DEFAULT 0,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            dead_letters INTEGER NOT NULL DEFAULT 0,
            last_error TEXT NOT NULL DEFAULT '',
            last_error_at_ms INTEGER NOT NULL DEFAULT 0,
            created_at_ms INTEGER NOT NULL
        );
        CREATE TABLE webhook_outbox (
            id INTEGER PRIMARY KEY,
            endpoint_rowid INTEGER NOT NULL REFERENCES webhook_endpoints(id),
            sequence INTEGER NOT NULL,
            change_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            body TEXT NOT NULL,
            enqueued_at_ms INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            first_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
            next_attempt_at_ms INTEGER NOT NULL
        );
        CREATE INDEX webhook_outbox_by_endpoint_user ON webhook_outbox(endpoint_rowid, user_id, id);
        CREATE TABLE webhook_dead_letters (
            id INTEGER PRIMARY KEY,
            endpoint_rowid INTEGER NOT NULL REFERENCES webhook_endpoints(id),
            sequence INTEGER NOT NULL,
            change_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            body TEXT NOT NULL,
            enqueued_at_ms INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            first_attempt_at_ms INTEGER NOT NULL,
            dead_at_ms INTEGER NOT NULL,
            last_error TEXT NOT NULL
        );
        """)
}
