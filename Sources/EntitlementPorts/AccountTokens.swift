import Entitlements

/// The app account tokens this service issues, one per user, and who owned a chain when.
///
/// A port of its own beside ``EntitlementRepository``: the hot path never needs it, and a
/// backend implements it in the same store so binding and claims read the tokens inside the
/// write transaction that decides ownership.
public protocol AccountTokens: Sendable {
    /// The user's token (lowercase UUID), issued and stored the first time it is asked for, the
    /// same on every later call, on every replica and after restarts. Durable when returned.
    func appAccountToken(userID: String) async throws -> String

    /// The user a token was issued to; nil for a token this service never issued. `token` may
    /// be in any case; an indexed read.
    func userID(appAccountToken token: String) throws -> String?

    /// Who owned the chain and when, oldest first, from the chain and its history; empty for a
    /// chain nobody ever owned.
    func owners(originalTransactionID: String) throws -> [ChainOwnership]
}

/// One user's time as a chain's owner.
public struct ChainOwnership: Sendable, Hashable {
    public var userID: String
    /// When it became theirs, as far as the history tells (their first event on the chain, or
    /// the transfer to them); nil when no event says.
    public var sinceMs: Int64?
    /// When it moved on; nil for the current owner.
    public var untilMs: Int64?

    public init(userID: String, sinceMs: Int64?, untilMs: Int64?) {
        self.userID = userID
        self.sinceMs = sinceMs
        self.untilMs = untilMs
    }
}

extension ChainOwnership {
    /// The owners a chain's history implies: each transfer ends its previous owner's time (the
    /// event sits in their history) and starts the next one's; `currentOwner` holds it now.
    ///
    /// `transfers` are (previous owner, event) pairs of ``HistoryEvent/Kind/ownershipTransfer``;
    /// `firstSeen` gives a user's earliest event on the chain, for the first owner's start.
    public static func timeline(
        transfers: [(previousOwner: String, event: HistoryEvent)], currentOwner: String?,
        currentSinceMs: Int64?, firstSeen: (String) -> Int64?
    ) -> [ChainOwnership] {
        let ordered = transfers.sorted { $0.event.occurredAtMs < $1.event.occurredAtMs }
        var owners: [ChainOwnership] = []
        var since: Int64? = ordered.first.flatMap { firstSeen($0.previousOwner) }
        for (previous, event) in ordered {
            owners.append(ChainOwnership(userID: previous, sinceMs: since, untilMs: event.occurredAtMs))
            since = event.occurredAtMs
        }
        if let currentOwner {
            let start = ordered.isEmpty ? (currentSinceMs ?? firstSeen(currentOwner)) : since
            owners.append(ChainOwnership(userID: currentOwner, sinceMs: start, untilMs: nil))
        }
        return owners
    }
}
