import Entitlements

/// What the entitlement service needs from storage, in the domain's words: record what a
/// receipt or a notification told us, read a user's facts, page a user's history.
///
/// The service knows only this protocol; the composition root picks the implementation:
/// `EntitlementStore` (SQLiteStore) or `PostgresEntitlementStore` (PostgreSQLStore) in
/// production, `InMemoryEntitlementStore` (EntitlementMemoryStore) in tests and as the
/// reference the others must match. One contract suite (Tests/EntitlementRepositoryContractTests) runs
/// against every implementation. Every error thrown is a ``StoreError``.
///
/// Reads are synchronous because they run on event-loop threads on the hot path; an
/// implementation must make them cheap and thread-safe, and must make an acknowledged write
/// visible to every read that starts after the acknowledgement.
public protocol EntitlementRepository: Sendable {
    /// Stores `write` durably; returns only once it is durable and visible to reads.
    ///
    /// The chains it names become the user's: a chain no user owns is bound (its waiting
    /// notification events join the user's history); one another user owns moves under
    /// ``TransferPolicy/transfer`` (the previous owner's history records the move) or fails the
    /// whole write under ``TransferPolicy/reject``. A replayed ``FactsWrite/sourceID`` is
    /// reported in ``WriteOutcome/alreadyProcessed`` and adds nothing new.
    func write(_ write: FactsWrite) async throws -> WriteOutcome

    /// Applies an App Store Server Notification once per ``NotificationWrite/sourceID``; returns
    /// only once it is durable and visible to reads, like ``write(_:)``.
    ///
    /// Facts and events go to the owner of each chain named; a chain no user owns yet keeps
    /// them until a ``write(_:)`` binds it to a user (not an ownership transfer), and then they
    /// are that user's. State never moves backwards: transactions only accumulate, the newest
    /// renewal info by signed date wins, and ``NotificationWrite/reversedRefunds`` is the only
    /// way a stored cancellation goes away (one dated after the reversal still applies).
    func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome

    /// Everything stored about `userID` (empty facts for an unknown user).
    func facts(userID: String) throws -> UserFacts

    /// The memo of answers kept with `userID`'s facts when the implementation holds them
    /// cached, else the facts themselves (see ``KeptAnswersOrFacts``). An implementation
    /// without a cache need not implement it: the default answers ``facts(userID:)``.
    func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts

    /// One page of `userID`'s history, newest first, optionally for one product.
    ///
    /// `pageSize` <= 0 means ``HistoryPage/defaultPageSize``; larger than
    /// ``HistoryPage/maximumPageSize`` is clamped. A token not issued by this store throws
    /// ``StoreError/Code/badPageToken``.
    func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws -> HistoryPage
}

/// What ``EntitlementRepository/keptAnswersOrFacts(userID:)`` hands back.
///
/// A hit in a cache of a million users' facts costs cache misses more than instructions, and
/// handing out the facts retains each of their arrays (one miss each) for a call that, while
/// the user's kept answer holds, reads only the memo. So a hit hands over the memo alone; the
/// caller asks for the facts when the memo has no answer for its filters and instant.
public enum KeptAnswersOrFacts: Sendable {
    /// The memo kept with the user's cached facts.
    case kept(CheckAnswerMemo)
    /// The user's facts, read afresh (a miss, or an implementation without a cache).
    case facts(UserFacts)
}

extension EntitlementRepository {
    public func keptAnswersOrFacts(userID: String) throws -> KeptAnswersOrFacts {
        .facts(try facts(userID: userID))
    }
}
