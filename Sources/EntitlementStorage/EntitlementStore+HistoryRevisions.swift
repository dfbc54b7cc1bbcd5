import EntitlementPorts
import SQLite
import ServiceRuntime

/// The Server API's history revisions, in the `history_revisions` table.
///
/// Both calls run as writer-thread jobs between batches: refreshes are rare (one per user
/// request), so a revision neither needs the read cache nor a place in the group commit, and
/// reading on the writer's connection sees every acknowledged write without a cache to keep
/// coherent.
extension EntitlementStore: TransactionHistoryRevisions {
    public func historyRevision(originalTransactionID: String) async throws -> String? {
        let found = Locked<String?>(nil)
        try await onWriter("reading a history revision") { db in
            let select = try db.prepare("SELECT revision FROM history_revisions WHERE original_transaction_id = ?")
            defer { select.reset() }
            select.bind(originalTransactionID, at: 1)
            if try select.step() { found.withLock { $0 = select.string(at: 0) } }
        }
        return found.withLock { $0 }
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws {
        try await onWriter("recording a history revision") { db in
            let upsert = try db.prepare("""
                INSERT INTO history_revisions (original_transaction_id, revision) VALUES (?, ?)
                ON CONFLICT (original_transaction_id) DO UPDATE SET revision = excluded.revision
                """)
            upsert.bind(originalTransactionID, at: 1)
            upsert.bind(revision, at: 2)
            try upsert.execute()
        }
    }

    /// Runs `body` on the writer's connection (autocommit: one statement, durable on return),
    /// with SQLite's errors as ``StoreError``s.
    private func onWriter(_ what: String, _ body: @escaping @Sendable (Connection) throws -> Void) async throws {
        do {
            try await withWriterConnection(body)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(error, what)
        }
    }
}
