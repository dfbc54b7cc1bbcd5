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
        \(current.table("webhook_endpoints"))
        \(current.table("webhook_outbox"))
        \(current.table("webhook_dead_letters"))
        """)
}
