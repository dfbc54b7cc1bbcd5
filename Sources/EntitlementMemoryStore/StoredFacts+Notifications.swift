import EntitlementPorts
import Entitlements

/// Applying a ``NotificationWrite``: facts per chain, for whoever owns it or for nobody yet.
extension StoredFacts {
    mutating func apply(_ notification: NotificationWrite, now: Int64) throws -> NotificationOutcome {
        if let orphan = notification.events.first(where: { $0.originalTransactionID.isEmpty }) {
            throw StoreError.eventWithoutChain(sourceID: notification.sourceID, eventID: orphan.eventID)
        }
        let key = SourceKey(source: notification.source, sourceID: notification.sourceID)
        guard processedSources.insert(key).inserted else { return NotificationOutcome(duplicate: true) }
        var outcome = NotificationOutcome()
        var owners = Set<String>()
        // Reversals first, so a cancellation in the same notification is judged against them.
        for transactionID in notification.reversedRefunds {
            refundReversals[transactionID] = max(refundReversals[transactionID] ?? .min, notification.signedDateMs)
            if let stored = transactions[transactionID] {
                transactions[transactionID] = stored.withRefundReversed(at: notification.signedDateMs)
            }
            if let chainID = chainOfTransaction[transactionID], let owner = chains[chainID]?.ownerID {
                owners.insert(owner)
            }
        }
        let chainIDs = Self.unique(notification.transactions.map(\.originalTransactionID)
            + notification.renewalInfos.map(\.originalTransactionID)
            + notification.events.map(\.originalTransactionID))
        for chainID in chainIDs {
            // A chain no user owns yet exists from now on, so a receipt later binds it.
            if chains[chainID] == nil { chains[chainID] = Chain() }
            let tokenUser = tokenUser(of: chainID, incoming: notification.transactions)
            if case let .take(previousOwner) = ClaimRules.bindByToken(owner: chains[chainID]?.ownerID,
                                                                     tokenUser: tokenUser),
               let tokenUser {
                let sample = notification.transactions.first { $0.originalTransactionID == chainID }
                outcome.newEvents += moveChain(
                    chainID, to: tokenUser, from: previousOwner, productID: sample?.productID ?? "",
                    environment: sample?.environment ?? .production, source: notification.source,
                    now: now)
                outcome.boundByToken += 1
                if let previousOwner {
                    outcome.ownershipTransfers += 1
                    owners.insert(previousOwner)
                }
            }
            if let owner = chains[chainID]?.ownerID { owners.insert(owner) }
        }
        for transaction in notification.transactions {
            let stored = store(transaction, chainID: transaction.originalTransactionID, source: notification.source,
                               notification: notification.report)
            if stored.isNew { outcome.newTransactions += 1 }
            for event in stored.events where insert(event, intoChain: transaction.originalTransactionID) {
                outcome.newEvents += 1
            }
            if let confirmation = stored.confirmation { confirm(confirmation) }
        }
        recordUpgrade(notification, outcome: &outcome)
        for info in notification.renewalInfos {
            upsert(info)
        }
        for event in notification.events where insert(event, intoChain: event.originalTransactionID) {
            outcome.newEvents += 1
        }
        outcome.ownerUserIDs = owners.sorted()
        return outcome
    }

    /// Records the PRODUCT_CHANGE of a V2 upgrade against the plan it replaced, found among
    /// the chain's transactions, or names it when a receipt or V1 CANCEL recorded it first.
    private mutating func recordUpgrade(_ notification: NotificationWrite, outcome: inout NotificationOutcome) {
        guard let report = notification.report, report.happening == .upgrade,
              let newPlan = notification.transactions.first(where: { $0.transactionID == report.subjectTransactionID }),
              let chain = chains[newPlan.originalTransactionID],
              let upgrade = HistoryDerivation.upgrade(
                  to: newPlan, chain: chain.transactionIDs.compactMap { transactions[$0] },
                  source: notification.source, notification: report)
        else { return }
        if insert(upgrade.event, intoChain: newPlan.originalTransactionID) { outcome.newEvents += 1 }
        confirm(upgrade.confirmation)
    }
}
