import EntitlementPorts
import Entitlements

/// Storing transactions, renewal infos and events: the rules every backend shares
/// (``Transaction/merged(with:)``, ``Transaction/withRefundReversed(at:)``,
/// ``HistoryDerivation``), applied to dictionaries.
extension StoredFacts {
    /// Stores `transaction` in `chainID` (or, if known, where it was first stored), merged with
    /// any stored copy; returns whether it is new, the events it derives and the existing event
    /// `notification` confirms.
    mutating func store(_ transaction: Transaction, chainID: String, source: HistoryEvent.Source,
                        notification: NotificationReport? = nil)
        -> (isNew: Bool, events: [HistoryEvent], confirmation: HistoryConfirmation?) {
        let id = transaction.transactionID
        let stored = transactions[id]
        let reversedAt = transaction.cancellationDateMs == nil ? nil : refundReversals[id]
        var events = HistoryDerivation.events(incoming: transaction, stored: stored, source: source,
                                              refundReversedAtMs: reversedAt, notification: notification)
        var confirmation = HistoryDerivation.confirmation(of: transaction, stored: stored, by: notification)
        // Only an upgrade being reported or named looks at the chain: resubmissions cost nothing.
        if transaction.isUpgraded, !events.isEmpty || confirmation != nil {
            (events, confirmation) = HistoryDerivation.joiningNewPlanUpgrade(
                events: events, confirmation: confirmation, of: transaction,
                chain: (chains[chainID]?.transactionIDs ?? []).compactMap { transactions[$0] },
                isRecorded: { historyOwnerOfEvent[$0] != nil || pendingEvents[$0] != nil })
        }
        let incoming = transaction.withRefundReversed(at: reversedAt)
        guard let stored else {
            transactions[id] = incoming
            chainOfTransaction[id] = chainID
            chains[chainID, default: Chain()].transactionIDs.append(id)
            return (true, events, confirmation)
        }
        transactions[id] = stored.merged(with: incoming)
        return (false, events, confirmation)
    }

    /// Keeps the renewal info with the newest signed date; an older or equal one changes nothing.
    mutating func upsert(_ info: RenewalInfo) {
        let chainID = info.originalTransactionID
        if let stored = chains[chainID]?.renewalInfo, stored.signedDateMs >= info.signedDateMs { return }
        chains[chainID, default: Chain()].renewalInfo = info
    }

    /// Adds `event` to `userID`'s history; `false` when its id is already in anyone's history.
    mutating func insert(_ event: HistoryEvent, intoHistoryOf userID: String) -> Bool {
        guard historyOwnerOfEvent[event.eventID] == nil else { return false }
        historyOwnerOfEvent[event.eventID] = userID
        history[userID, default: [:]][event.eventID] = event
        changeLog.eventsOfThisWrite.append((userID, event))
        return true
    }

    /// Adds `event` to the history of the chain's owner, or keeps it with the chain until one
    /// binds it; `false` when its id was already recorded in either place.
    mutating func insert(_ event: HistoryEvent, intoChain chainID: String) -> Bool {
        if let ownerID = chains[chainID]?.ownerID { return insert(event, intoHistoryOf: ownerID) }
        guard historyOwnerOfEvent[event.eventID] == nil, pendingEvents[event.eventID] == nil else { return false }
        pendingEvents[event.eventID] = event
        chains[chainID, default: Chain()].pendingEventIDs.append(event.eventID)
        return true
    }

    /// Gives the event `confirmation` names (owned or waiting) the notification's type, and
    /// its kind when it says so; its id, date and source stay.
    mutating func confirm(_ confirmation: HistoryConfirmation) {
        func confirmed(_ event: HistoryEvent) -> HistoryEvent? {
            if let at = confirmation.occurredAtMs, event.occurredAtMs != at { return nil }
            var event = event
            event.appleNotificationType = confirmation.appleNotificationType
            if let kind = confirmation.kind { event.kind = kind }
            return event
        }
        for eventID in confirmation.eventIDs {
            if let userID = historyOwnerOfEvent[eventID], let event = history[userID]?[eventID],
               let updated = confirmed(event) {
                history[userID]?[eventID] = updated
            }
            if let event = pendingEvents[eventID], let updated = confirmed(event) {
                pendingEvents[eventID] = updated
            }
        }
    }
}
