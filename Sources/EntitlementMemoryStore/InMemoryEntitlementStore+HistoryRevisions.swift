import EntitlementPorts

extension InMemoryEntitlementStore: TransactionHistoryRevisions {
    public func historyRevision(originalTransactionID: String) async throws -> String? {
        historyRevisions.withLock { $0[originalTransactionID] }
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws {
        historyRevisions.withLock { $0[originalTransactionID] = revision }
    }
}
