/// Where the App Store Server API's transaction history left off for each chain, so a refresh
/// asks Apple only for what changed since (`GET /inApps/v2/history/{id}?revision=...`).
///
/// Separate from ``EntitlementRepository`` because only the Server API path needs it; both
/// backends implement it and the contract suite runs against both. A revision is recorded only
/// after the facts it covers are durable: losing one costs a longer history call, never a fact.
public protocol TransactionHistoryRevisions: Sendable {
    /// The revision last recorded for the chain, or nil (ask for the whole history).
    func historyRevision(originalTransactionID: String) async throws -> String?

    /// Records `revision` for the chain, replacing the previous one; durable when it returns.
    func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws
}
