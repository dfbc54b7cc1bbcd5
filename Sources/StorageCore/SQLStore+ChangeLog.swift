import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import StorageTables

/// The change log, webhook outbox, reconciliation watermarks and history revisions
/// (``EntitlementChangeLog``, ``EntitlementChangeUpkeep``, ``WebhookOutbox``,
/// ``ReconciliationProgress``, ``TransactionHistoryRevisions``), once for every engine.
extension SQLStore: EntitlementChangeLog, EntitlementChangeUpkeep, WebhookOutbox, ReconciliationProgress,
    TransactionHistoryRevisions {
    // MARK: Change log

    public nonisolated func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        guard limit > 0 else { return [] }
        return try read("reading the change log") {
            try $0.changes(after: sequence, userID: userID, limit: limit, logID: changeLogID)
        }
    }

    public nonisolated func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try read("reading the change log's bounds") { try $0.changeLogBounds() }
    }

    /// `observer` runs on the writer thread right after each commit that appended changes; on
    /// PostgreSQL also on the listener thread after other replicas' (and after a LISTEN reconnect).
    public nonisolated func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        changeObservers.withLock { $0.append(observer) }
    }

    /// After the writes queued before it; the writer also does this by itself at every due instant.
    public func recordDueChanges() throws -> Int {
        try writer.betweenBatches()
        return try writer.commitDueChanges()
    }

    public nonisolated func nextDueInstant() throws -> Int64? {
        try read("reading the next due instant") {
            try $0.db.scalarInt64("SELECT MIN(next_due_ms) FROM entitlement_heads WHERE next_due_ms IS NOT NULL")
        }
    }

    /// After the writes queued before it; the writer also prunes by itself with
    /// ``StoreConfiguration/changeRetentionMs``.
    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) throws -> Int {
        try writer.betweenBatches()
        return try writer.pruneChanges(occurredBefore: cutoffMs, limit: limit)
    }

    // MARK: Webhook outbox

    // Writes share the writer's group commit with facts writes (a batch of delivery outcomes
    // is one job, never one transaction per delivery); reads use the read connections and
    // never wait for the writer.

    public nonisolated func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64] {
        try await writeOutbox(.register(urls: urls, latestSequence: latestSequence, nowMs: nowMs)).cursors
    }

    public nonisolated func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
        async throws -> Int {
        try await writeOutbox(.enqueue(messages: messages, through: through, replay: replay, nowMs: nowMs)).added
    }

    public nonisolated func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        _ = try await writeOutbox(.outcomes(outcomes))
    }

    private nonisolated func writeOutbox(_ write: WebhookOutboxWrite) async throws -> WebhookOutboxAnswer {
        try await submit { .webhooks(write, $0) }
    }

    public nonisolated func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws
        -> [WebhookDelivery] {
        try read("reading due webhook deliveries") {
            try $0.dueWebhookDeliveries(endpoint: endpoint, nowMs: nowMs, limit: limit)
        }
    }

    public nonisolated func webhookStatus() throws -> [WebhookEndpointStatus] {
        try read("reading webhook status") { try $0.webhookStatus() }
    }

    // MARK: Reconciliation watermarks

    /// On the writer's connection after the writes queued before it, so ordered after them: a
    /// watermark recorded after a batch of notifications was acknowledged is never
    /// committed ahead of it. Autocommit on the writer's connection, so durable when it returns.
    public func reconciledThrough(_ environment: Environment) throws -> Int64? {
        try onWriter("reading the reconciliation watermark") { db in
            let select = try db.prepare(
                "SELECT reconciled_through_ms FROM reconciliation_watermarks WHERE environment = ?")
            defer { select.reset() }
            select.bind(environment.rawValue, at: 1)
            return try select.step() ? select.int64(at: 0) : nil
        }
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) throws {
        try onWriter("recording the reconciliation watermark") { db in
            let upsert = try db.prepare("""
                INSERT INTO reconciliation_watermarks (environment, reconciled_through_ms) VALUES (?, ?)
                ON CONFLICT (environment) DO UPDATE
                    SET reconciled_through_ms = CASE
                        WHEN excluded.reconciled_through_ms > reconciliation_watermarks.reconciled_through_ms
                        THEN excluded.reconciled_through_ms ELSE reconciliation_watermarks.reconciled_through_ms END
                """)
            upsert.bind(environment.rawValue, at: 1)
            upsert.bind(unixMs, at: 2)
            try upsert.execute()
        }
    }

    // MARK: History revisions

    /// On the writer's connection between batches: refreshes are rare (one per user request),
    /// so a revision needs neither the read cache nor a place in the group commit, and the
    /// writer's connection sees every acknowledged write.
    public func historyRevision(originalTransactionID: String) throws -> String? {
        try onWriter("reading a history revision") { db in
            let select = try db.prepare("SELECT revision FROM history_revisions WHERE original_transaction_id = ?")
            defer { select.reset() }
            select.bind(originalTransactionID, at: 1)
            return try select.step() ? select.string(at: 0) : nil
        }
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) throws {
        try onWriter("recording a history revision") { db in
            let upsert = try db.prepare("""
                INSERT INTO history_revisions (original_transaction_id, revision) VALUES (?, ?)
                ON CONFLICT (original_transaction_id) DO UPDATE SET revision = excluded.revision
                """)
            upsert.bind(originalTransactionID, at: 1)
            upsert.bind(revision, at: 2)
            try upsert.execute()
        }
    }
}
