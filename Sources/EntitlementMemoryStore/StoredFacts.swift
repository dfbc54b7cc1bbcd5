import EntitlementPorts
import Entitlements

/// Everything the in-memory store holds, guarded by its lock: the same facts as the SQLite
/// schema (chains with or without an owner, transactions, renewal infos, history, events
/// waiting for a chain's owner, processed sources, refund reversals).
struct StoredFacts: Sendable {
    /// A subscription chain (or a one-off purchase), by its original transaction id.
    struct Chain: Sendable {
        /// `nil` while only notifications have named the chain.
        var ownerID: String?
        /// Its transactions' ids, in the order they were first stored.
        var transactionIDs: [String] = []
        /// The newest renewal info by signed date.
        var renewalInfo: RenewalInfo?
        /// Events waiting for an owner (ids into ``StoredFacts/pendingEvents``), oldest first.
        var pendingEventIDs: [String] = []
    }

    /// A processed receipt or notification: the idempotency key.
    struct SourceKey: Hashable, Sendable {
        var source: HistoryEvent.Source
        var sourceID: String
    }

    var chains: [String: Chain] = [:]
    /// Each owner's chains, in the order they became theirs: what ``facts(of:)`` reads.
    var chainIDsByOwner: [String: [String]] = [:]
    /// Every stored transaction by transaction id (ids are global, like Apple's).
    var transactions: [String: Transaction] = [:]
    /// The chain a transaction was first stored in; it never moves, as in the SQLite store.
    var chainOfTransaction: [String: String] = [:]
    /// The latest time Apple reversed a refund, per transaction id (stored or not yet).
    var refundReversals: [String: Int64] = [:]
    var processedSources: Set<SourceKey> = []
    /// Each user's history by event id.
    var history: [String: [String: HistoryEvent]] = [:]
    /// Whose history holds an event id: ids are unique across all users.
    var historyOwnerOfEvent: [String: String] = [:]
    /// Events of chains no user owns yet, by event id.
    var pendingEvents: [String: HistoryEvent] = [:]
    /// The change log (oldest first), what was last announced per user and chain, and the
    /// history events the write being applied added (see StoredFacts+Changes.swift).
    var changeLog = ChangeLogState()
    /// The app account token issued to each user, and the reverse.
    var tokensByUser: [String: String] = [:]
    var usersByToken: [String: String] = [:]
    /// Each user's grants in the order given, and their idempotency keys' grant ids.
    var grants: [String: [Grant]] = [:]
    var grantIDsByKey: [String: [String: String]] = [:]
    /// The first price stored for each transaction id, and the daily rollup's cells
    /// (StoredFacts+Rollup.swift).
    var prices: [String: TransactionPrice] = [:]
    var rollup: [RollupKey: Int64] = [:]

    /// Everything stored about `userID`: empty for an unknown user.
    func facts(of userID: String) -> UserFacts {
        var facts = UserFacts()
        for chainID in chainIDsByOwner[userID] ?? [] {
            guard let chain = chains[chainID] else { continue }
            facts.transactions += chain.transactionIDs.compactMap { transactions[$0] }
            if let info = chain.renewalInfo { facts.renewalInfos[chainID] = info }
        }
        facts.grants = grants[userID] ?? []
        return facts
    }

    /// Up to `limit` of `userID`'s events strictly older than `cursor`, newest first.
    ///
    /// The order is (occurredAtMs, eventID) descending with ids compared as UTF-8 bytes, the
    /// order SQLite's BINARY collation gives, so both backends page identically.
    func history(of userID: String, productID: String?, before cursor: HistoryCursor?, limit: Int)
        -> [HistoryEvent] {
        let events = (history[userID] ?? [:]).values.filter { event in
            if let productID, event.productID != productID { return false }
            guard let cursor else { return true }
            return Self.precedes(event.occurredAtMs, event.eventID, cursor.occurredAtMs, cursor.eventID)
        }
        return Array(events.sorted {
            Self.precedes($1.occurredAtMs, $1.eventID, $0.occurredAtMs, $0.eventID)
        }.prefix(limit))
    }

    /// Whether (ms, id) sorts before (otherMs, otherID).
    static func precedes(_ ms: Int64, _ id: String, _ otherMs: Int64, _ otherID: String) -> Bool {
        if ms != otherMs { return ms < otherMs }
        return id.utf8.lexicographicallyPrecedes(otherID.utf8)
    }
}
