import EntitlementPorts
import Entitlements

/// The change log in memory: the reference for ``EntitlementChangeLog`` and
/// ``EntitlementChangeUpkeep``, held to the same contract suite as the SQLite store.
extension InMemoryEntitlementStore: EntitlementChangeLog, EntitlementChangeUpkeep {
    public func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        guard limit > 0 else { return [] }
        return state.withLock { facts in
            var found: [EntitlementChange] = []
            for change in facts.changeLog.changes where change.sequence > sequence {
                guard userID == nil || change.userID == userID else { continue }
                found.append(change)
                if found.count == limit { break }
            }
            return found
        }
    }

    public func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        state.withLock { facts in
            let latest = facts.changeLog.latestSequence
            return (facts.changeLog.changes.first?.sequence ?? latest + 1, latest)
        }
    }

    public func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        changeObservers.withLock { $0.append(observer) }
    }

    public func recordDueChanges() async throws -> Int {
        let now = clock()
        let (count, latest) = state.withLock { facts in
            let count = facts.recordDueChanges(now: now, catalog: catalog, logID: changeLogID)
            return (count, facts.changeLog.latestSequence)
        }
        if count > 0 { notifyChangesCommitted(latest) }
        return count
    }

    public func nextDueInstant() throws -> Int64? {
        state.withLock { $0.nextDueInstant() }
    }

    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int {
        state.withLock { $0.pruneChanges(occurredBefore: cutoffMs, limit: limit) }
    }

    func notifyChangesCommitted(_ latest: Int64) {
        for observer in changeObservers.withLock({ $0 }) { observer(latest) }
    }
}
