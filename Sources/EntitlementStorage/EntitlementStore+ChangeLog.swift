import EntitlementPorts
import Entitlements

/// The change log (issue 12): read on WAL connections, written by the writer with the facts
/// that cause each change, kept by the writer's own timer (due changes, pruning).
extension EntitlementStore: EntitlementChangeLog, EntitlementChangeUpkeep {
    public func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        guard limit > 0 else { return [] }
        return try readers.withReader { reader in
            do {
                return try reader.changes(after: sequence, userID: userID, limit: limit, logID: changeLogID)
            } catch {
                throw StoreError.storage(error, "reading the change log")
            }
        }
    }

    public func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try readers.withReader { reader in
            do {
                return try reader.changeLogBounds()
            } catch {
                throw StoreError.storage(error, "reading the change log's bounds")
            }
        }
    }

    /// `observer` runs on the writer thread right after each commit that appended changes.
    public func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        changeObservers.withLock { $0.append(observer) }
    }

    /// Queued like a write; the writer also does this by itself at every due instant.
    public func recordDueChanges() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            if !queue.enqueue(.dueChanges(continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }

    public func nextDueInstant() throws -> Int64? {
        try readers.withReader { reader in
            do {
                return try reader.db.scalarInt64(
                    "SELECT MIN(next_due_ms) FROM entitlement_heads WHERE next_due_ms IS NOT NULL")
            } catch {
                throw StoreError.storage(error, "reading the next due instant")
            }
        }
    }

    /// Queued like a write; the writer also prunes by itself with ``Configuration/changeRetentionMs``.
    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            if !queue.enqueue(.pruneChanges(cutoffMs: cutoffMs, limit: limit, continuation)) {
                continuation.resume(throwing: StoreError.closedStore)
            }
        }
    }
}
