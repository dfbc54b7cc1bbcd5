import EntitlementPorts
import Entitlements

/// The change log's state in memory: the same tables as the SQLite store's migration
/// `entitlement_change_log` (changes, heads with their due instant), as dictionaries.
struct ChangeLogState: Sendable {
    /// What was last announced for one user's chain, and when time alone changes it next.
    struct Head: Sendable {
        var entitlement: Entitlement
        var nextDueMs: Int64?
    }

    /// Retained changes, oldest first.
    var changes: [EntitlementChange] = []
    var latestSequence: Int64 = 0
    /// By user id, then original transaction id.
    var heads: [String: [String: Head]] = [:]
    /// History events the write being applied added, with whose history holds them.
    var eventsOfThisWrite: [(owner: String, event: HistoryEvent)] = []
}

/// Deriving changes: ``EntitlementTransitions`` applied to the heads, as the SQLite store's
/// ChangeRecorder does inside the writer's transaction.
extension StoredFacts {
    /// Announces what time alone changed by `now`: each due head at its own instant, oldest
    /// first (ties by user id, then chain); returns how many changes it appended.
    mutating func recordDueChanges(now: Int64, catalog: Catalog, logID: String) -> Int {
        var appended = 0
        while let (userID, chainID, dueMs) = earliestDueHead(notAfter: now) {
            let current = EntitlementRules.entitlements(for: facts(of: userID), at: .now(dueMs), catalog: catalog)
                .filter { $0.originalTransactionID == chainID }
            let before = changeLog.heads[userID]?[chainID].map { [$0.entitlement] } ?? []
            appended += announce(userID: userID, before: before, after: current, at: dueMs, logID: logID) { _ in "" }
        }
        return appended
    }

    /// Announces the changes the write just applied made to `userIDs`' entitlements at `now`,
    /// each naming its cause (``ChangeCause``); returns how many it appended.
    mutating func recordChanges(of userIDs: [String], now: Int64, catalog: Catalog, logID: String) -> Int {
        var appended = 0
        for userID in Set(userIDs).sorted() {
            let after = EntitlementRules.entitlements(for: facts(of: userID), at: .now(now), catalog: catalog)
            let before = (changeLog.heads[userID] ?? [:]).values.map(\.entitlement)
            let added = changeLog.eventsOfThisWrite
            var causes: [String: String] = [:]
            for transition in EntitlementTransitions.between(before: before, after: after) {
                let chainID = transition.entitlement.originalTransactionID
                causes[chainID] = ChangeCause.eventID(owner: userID, chainID: chainID, addedByWrite: added) {
                    newestEvent(of: userID, chainID: chainID)
                }
            }
            appended += announce(userID: userID, before: before, after: after, at: now, logID: logID) {
                causes[$0] ?? ""
            }
        }
        changeLog.eventsOfThisWrite = []
        return appended
    }

    /// Appends the transitions from `before` to `after` and moves the heads to `after`.
    private mutating func announce(
        userID: String, before: [Entitlement], after: [Entitlement], at instantMs: Int64, logID: String,
        cause: (String) -> String
    ) -> Int {
        let transitions = EntitlementTransitions.between(before: before, after: after)
        for transition in transitions {
            changeLog.latestSequence += 1
            let sequence = changeLog.latestSequence
            changeLog.changes.append(EntitlementChange(
                sequence: sequence, changeID: EntitlementChange.changeID(logID: logID, sequence: sequence),
                userID: userID, entitlement: transition.entitlement, previousState: transition.previousState,
                occurredAtMs: instantMs, causeEventID: cause(transition.entitlement.originalTransactionID)))
        }
        for entitlement in after {
            changeLog.heads[userID, default: [:]][entitlement.originalTransactionID] = ChangeLogState.Head(
                entitlement: entitlement,
                nextDueMs: EntitlementTransitions.nextDueInstant(of: entitlement, after: instantMs))
        }
        // A chain the user lost stays announced as withdrawn and is never due again.
        for previous in before
        where !after.contains(where: { $0.originalTransactionID == previous.originalTransactionID }) {
            changeLog.heads[userID]?[previous.originalTransactionID] = ChangeLogState.Head(
                entitlement: EntitlementTransitions.withdrawn(previous), nextDueMs: nil)
        }
        return transitions.count
    }

    private func earliestDueHead(notAfter now: Int64) -> (String, String, Int64)? {
        var earliest: (String, String, Int64)?
        for (userID, heads) in changeLog.heads {
            for (chainID, head) in heads {
                guard let due = head.nextDueMs, due <= now else { continue }
                if let (bestUser, bestChain, bestDue) = earliest,
                   (bestDue, bestUser, bestChain) <= (due, userID, chainID) { continue }
                earliest = (userID, chainID, due)
            }
        }
        return earliest
    }

    /// The newest event in `userID`'s history about `chainID`, in history-page order.
    private func newestEvent(of userID: String, chainID: String) -> String? {
        (history[userID] ?? [:]).values.filter { $0.originalTransactionID == chainID }
            .max { Self.precedes($0.occurredAtMs, $0.eventID, $1.occurredAtMs, $1.eventID) }?.eventID
    }

    /// The earliest due instant of any head.
    func nextDueInstant() -> Int64? {
        changeLog.heads.values.flatMap(\.values).compactMap(\.nextDueMs).min()
    }

    /// Drops up to `limit` of the oldest changes that occurred before `cutoffMs`, stopping at
    /// the first newer one.
    mutating func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) -> Int {
        var count = 0
        while count < limit, count < changeLog.changes.count, changeLog.changes[count].occurredAtMs < cutoffMs {
            count += 1
        }
        changeLog.changes.removeFirst(count)
        return count
    }
}
