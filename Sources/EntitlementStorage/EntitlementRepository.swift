import Entitlements

/// The storage the entitlement service depends on: write facts, read facts, page history.
///
/// ``EntitlementStore`` is the SQLite implementation; a PostgreSQL one for stateless replicas
/// can follow without touching the service. Every error thrown is a ``StoreError``.
/// Reads are synchronous because they run on event-loop threads on the hot path; an
/// implementation must make them cheap and thread-safe, and must make an acknowledged write
/// visible to every read that starts after the acknowledgement.
public protocol EntitlementRepository: Sendable {
    /// Stores `write` durably; returns only once it is durable and visible to reads.
    func write(_ write: FactsWrite) async throws -> WriteOutcome

    /// Everything stored about `userID` (empty facts for an unknown user).
    func facts(userID: String) throws -> UserFacts

    /// One page of `userID`'s history, newest first, optionally for one product.
    ///
    /// `pageSize` <= 0 means ``HistoryPage/defaultPageSize``; larger than
    /// ``HistoryPage/maximumPageSize`` is clamped. A token not issued by this store throws
    /// ``StoreError/Code/badPageToken``.
    func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage
}
