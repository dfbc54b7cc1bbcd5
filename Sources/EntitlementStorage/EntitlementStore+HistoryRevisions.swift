import EntitlementPorts

/// The Server API's history revisions, in the `history_revisions` table, read and written on
/// the writer's connection between batches (``StoreCore/historyRevision(originalTransactionID:)``).
extension EntitlementStore: TransactionHistoryRevisions {
    public func historyRevision(originalTransactionID: String) async throws -> String? {
        try await core.historyRevision(originalTransactionID: originalTransactionID)
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws {
        try await core.recordHistoryRevision(revision, originalTransactionID: originalTransactionID)
    }
}
