import EntitlementPorts
import Entitlements
import Synchronization

/// A change log in memory for the dispatcher's tests: changes appended by the test, the
/// observers told after each append, and pruning to test retention.
final class ChangeLogDouble: EntitlementChangeLog {
    private struct State {
        var changes: [EntitlementChange] = []
        var latest: Int64 = 0
        var oldestRetained: Int64 = 1
        var observers: [@Sendable (Int64) -> Void] = []
    }

    private let state = Mutex(State())

    func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        state.withLock { state in
            Array(state.changes.filter { $0.sequence > sequence && (userID == nil || $0.userID == userID) }
                .prefix(max(0, limit)))
        }
    }

    func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        state.withLock { ($0.oldestRetained, $0.latest) }
    }

    func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Appends a change of `user`'s `product` to `to` and tells the observers.
    @discardableResult
    func append(user: String, product: String = "pro.monthly", to newState: EntitlementState) -> EntitlementChange {
        let (change, observers) = state.withLock { state in
            state.latest += 1
            let entitlement = Entitlement(
                productID: product, originalTransactionID: "chain-\(user)", state: newState,
                purchasedAtMs: 1_700_000_000_000, expiresAtMs: 1_702_600_000_000, productType: .autoRenewable,
                environment: .production, latestTransactionID: "t-\(state.latest)", entitlementID: "pro")
            let change = EntitlementChange(
                sequence: state.latest, changeID: "log-\(state.latest)", userID: user, entitlement: entitlement,
                previousState: nil, occurredAtMs: 1_700_000_000_000 + state.latest, causeEventID: "ev-\(state.latest)")
            state.changes.append(change)
            return (change, state.observers)
        }
        for observer in observers { observer(change.sequence) }
        return change
    }

    /// Deletes every change up to `sequence`, as retention would.
    func prune(through sequence: Int64) {
        state.withLock { state in
            state.changes.removeAll { $0.sequence <= sequence }
            state.oldestRetained = max(state.oldestRetained, sequence + 1)
        }
    }
}
