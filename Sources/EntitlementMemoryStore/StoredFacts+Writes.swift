import EntitlementPorts
import Entitlements

/// Recording a ``FactsWrite``: the user's chains are bound, moved or refused, then the facts
/// are stored and their history derived, exactly as the SQLite store's `FactsRecorder` does.
extension StoredFacts {
    mutating func record(_ write: FactsWrite, transferPolicy: TransferPolicy, now: Int64) throws -> WriteOutcome {
        let chainIDs = Self.unique(write.transactions.map(\.originalTransactionID)
            + write.renewalInfos.map(\.originalTransactionID))
        // Checked before anything changes: a refused write leaves no trace, not even its source.
        if transferPolicy == .reject,
           let taken = chainIDs.first(where: { chains[$0]?.ownerID.map { $0 != write.userID } ?? false }) {
            throw StoreError.ownershipConflict(originalTransactionID: taken)
        }
        var outcome = WriteOutcome()
        if let sourceID = write.sourceID {
            let key = SourceKey(source: write.source, sourceID: sourceID)
            outcome.alreadyProcessed = !processedSources.insert(key).inserted
        }
        for chainID in chainIDs {
            let sample = write.transactions.first { $0.originalTransactionID == chainID }
            outcome.newEvents += claim(chainID, for: write, sample: sample, now: now)
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

    /// Binds, moves or keeps `chainID` for the writing user; returns the history events added
    /// (a bound chain's waiting events, a transfer's event in the previous owner's history).
    ///
    /// A chain a notification created without an owner is bound, not transferred: nobody loses
    /// it, so no transfer event is recorded.
    private mutating func claim(_ chainID: String, for write: FactsWrite, sample: Transaction?, now: Int64) -> Int {
        guard let chain = chains[chainID] else {
            chains[chainID] = Chain(ownerID: write.userID)
            chainIDsByOwner[write.userID, default: []].append(chainID)
            return 0
        }
        guard let previousOwner = chain.ownerID else {
            setOwner(of: chainID, to: write.userID)
            return adoptPendingEvents(of: chainID, by: write.userID)
        }
        guard previousOwner != write.userID else { return 0 }
        setOwner(of: chainID, to: write.userID)
        let transfer = HistoryDerivation.ownershipTransfer(
            originalTransactionID: chainID, productID: sample?.productID ?? "", toUserID: write.userID,
            occurredAtMs: now, environment: sample?.environment ?? .production, source: write.source)
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
