import EntitlementPorts
import Entitlements

/// The change log (issue 12): read on WAL connections, written by the writer with the facts
/// that cause each change, kept by the writer's own timer (due changes, pruning).
extension EntitlementStore: EntitlementChangeLog, EntitlementChangeUpkeep {
    public func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        try core.changes(after: sequence, userID: userID, limit: limit)
    }

    public func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try core.changeLogBounds()
    }

    /// `observer` runs on the writer thread right after each commit that appended changes.
    public func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        core.onChangesCommitted(observer)
    }

    /// Queued like a write; the writer also does this by itself at every due instant.
    public func recordDueChanges() async throws -> Int {
        try await core.recordDueChanges()
    }

    public func nextDueInstant() throws -> Int64? {
        try core.nextDueInstant()
    }

    /// Queued like a write; the writer also prunes by itself with ``Configuration/changeRetentionMs``.
    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int {
        try await core.pruneChanges(occurredBefore: cutoffMs, limit: limit)
    }
}
