import EntitlementPorts
import Entitlements

/// Recording a ``FactsWrite``: the user's chains are bound, moved or refused, then the facts
/// are stored and their history derived, exactly as the SQLite store's `FactsRecorder` does.
extension StoredFacts {
    mutating func record(_ write: FactsWrite, transferPolicy: TransferPolicy, now: Int64) throws -> WriteOutcome {
        let chainIDs = Self.unique(write.transactions.map(\.originalTransactionID)
            + write.renewalInfos.map(\.originalTransactionID))
        // Decided before anything changes: a refused or conflicting write leaves no trace but
        // the refusals' events, not even its source.
        var decisions: [(chainID: String, decision: ClaimDecision)] = []
        var refusals: [ClaimRefusal] = []
        var conflict: String?
        for chainID in chainIDs {
            let decision = ClaimRules.decide(
                claimant: write.userID, owner: chains[chainID]?.ownerID,
                tokenUser: tokenUser(of: chainID, incoming: write.transactions), proof: write.proof,
                policy: transferPolicy)
            switch decision {
            case let .refuse(reason, keptBy):
                refusals.append(ClaimRefusal(reason: reason, originalTransactionID: chainID, ownerUserID: keptBy))
            case .conflict: conflict = conflict ?? chainID
            case .keep, .take: decisions.append((chainID, decision))
            }
        }
        var outcome = WriteOutcome()
        if !refusals.isEmpty {
            for refusal in refusals {
                let sample = write.transactions.first { $0.originalTransactionID == refusal.originalTransactionID }
                let event = HistoryDerivation.claimRefused(
                    originalTransactionID: refusal.originalTransactionID, productID: sample?.productID ?? "",
                    claimantUserID: write.userID, occurredAtMs: now, environment: sample?.environment ?? .production,
                    source: write.source)
                if insert(event, intoHistoryOf: refusal.ownerUserID) { outcome.newEvents += 1 }
            }
            outcome.refusals = refusals
            return outcome
        }
        if let conflict { throw StoreError.ownershipConflict(originalTransactionID: conflict) }
        if let sourceID = write.sourceID {
            let key = SourceKey(source: write.source, sourceID: sourceID)
            outcome.alreadyProcessed = !processedSources.insert(key).inserted
        }
        for (chainID, decision) in decisions {
            guard case let .take(previousOwner) = decision else { continue }
            let sample = write.transactions.first { $0.originalTransactionID == chainID }
            outcome.newEvents += take(chainID, for: write, from: previousOwner, sample: sample, now: now)
            if previousOwner != nil { outcome.ownershipTransfers += 1 }
            if tokenUser(of: chainID, incoming: write.transactions) == nil,
               AppAccountToken.carried(by: chainTransactions(chainID, incoming: write.transactions)).isEmpty {
                outcome.tokenlessChainsTaken.append(chainID)
            }
        }
        for transaction in write.transactions {
            let stored = store(transaction, chainID: transaction.originalTransactionID, source: write.source)
            if stored.isNew { outcome.newTransactions += 1 }
            for event in stored.events where insert(event, intoHistoryOf: write.userID) {
                outcome.newEvents += 1
            }
        }
        for info in write.renewalInfos {
            upsert(info)
        }
        return outcome
    }

    /// The user this service issued a token to that the chain's transactions (stored, or
    /// arriving in `incoming`) carry; nil without one.
    func tokenUser(of chainID: String, incoming: [Transaction]) -> String? {
        for token in AppAccountToken.carried(by: chainTransactions(chainID, incoming: incoming)) {
            if let user = usersByToken[token] { return user }
        }
        return nil
    }

    private func chainTransactions(_ chainID: String, incoming: [Transaction]) -> [Transaction] {
        incoming.filter { $0.originalTransactionID == chainID }
            + (chains[chainID]?.transactionIDs ?? []).compactMap { transactions[$0] }
    }

    /// Creates, binds or moves `chainID` to the writing user; returns the history events added
    /// (a bound chain's waiting events, a transfer's event in the previous owner's history).
    ///
    /// A chain a notification created without an owner is bound, not transferred: nobody loses
    /// it, so no transfer event is recorded.
    private mutating func take(
        _ chainID: String, for write: FactsWrite, from previousOwner: String?, sample: Transaction?, now: Int64
    ) -> Int {
        guard chains[chainID] != nil else {
            chains[chainID] = Chain(ownerID: write.userID)
            chainIDsByOwner[write.userID, default: []].append(chainID)
            return 0
        }
        return moveChain(chainID, to: write.userID, from: previousOwner, productID: sample?.productID ?? "",
                         environment: sample?.environment ?? .production, source: write.source, now: now)
    }

    /// Gives an existing chain to `userID`: waiting events join their history when nobody
    /// owned it, else the previous owner's history records the transfer. Returns events added.
    mutating func moveChain(
        _ chainID: String, to userID: String, from previousOwner: String?, productID: String,
        environment: Environment, source: HistoryEvent.Source, now: Int64
    ) -> Int {
        guard let previousOwner else {
            setOwner(of: chainID, to: userID)
            return adoptPendingEvents(of: chainID, by: userID)
        }
        setOwner(of: chainID, to: userID)
        let transfer = HistoryDerivation.ownershipTransfer(
            originalTransactionID: chainID, productID: productID, toUserID: userID,
            occurredAtMs: now, environment: environment, source: source)
        return insert(transfer, intoHistoryOf: previousOwner) ? 1 : 0
    }

    private mutating func setOwner(of chainID: String, to userID: String) {
        if let previous = chains[chainID]?.ownerID {
            chainIDsByOwner[previous]?.removeAll { $0 == chainID }
        }
        chains[chainID]?.ownerID = userID
        chainIDsByOwner[userID, default: []].append(chainID)
    }

    /// Moves the chain's waiting events into `userID`'s history; returns how many it added.
    private mutating func adoptPendingEvents(of chainID: String, by userID: String) -> Int {
        var adopted = 0
        for eventID in chains[chainID]?.pendingEventIDs ?? [] {
            guard let event = pendingEvents.removeValue(forKey: eventID) else { continue }
            if insert(event, intoHistoryOf: userID) { adopted += 1 }
        }
        chains[chainID]?.pendingEventIDs = []
        return adopted
    }

    /// Each id once, first occurrence first.
    static func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }
}
