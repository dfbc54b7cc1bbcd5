import EntitlementPorts
import Entitlements
import Synchronization

/// The ``EntitlementRepository`` in memory: the reference implementation of the contract.
///
/// Same semantics as the SQLite store, checked by the one contract suite that runs against
/// both: idempotency by source id, ownership transfer or reject, chains kept for no one until
/// a receipt binds them, refunds and reversals independent of arrival order, transactions that
/// only accumulate, history pages with the same opaque tokens, and every acknowledged write
/// visible to the next read. Nothing is durable: it is for tests (the service's tests run on
/// it in milliseconds) and the model a new backend (PostgreSQL) is written against. It is in
/// no executable, so it costs the production binary nothing.
///
/// One lock around plain dictionaries: a write validates first and then mutates, so a refused
/// write changes nothing, like the SQLite store's per-write savepoint.
public final class InMemoryEntitlementStore: EntitlementRepository {
    let state = Mutex(StoredFacts())
    let reconciledThrough = Mutex<[Environment: Int64]>([:])
    private let transferPolicy: TransferPolicy
    let clock: @Sendable () -> Int64
    let catalog: Catalog
    /// This log's random id, the prefix of its change ids.
    let changeLogID: String
    let changeObservers = Mutex<[@Sendable (Int64) -> Void]>([])
    /// The Server API's history revision per chain (InMemoryEntitlementStore+HistoryRevisions).
    let historyRevisions = Mutex<[String: String]>([:])
    let consumption = Mutex<[String: ConsumptionRow]>([:])

    /// `clock` gives Unix milliseconds: when a chain changed owner (the transfer event's date),
    /// when a change occurred. `catalog` is the one CheckEntitlement answers with, so the change
    /// log records the entitlements it would answer.
    public init(transferPolicy: TransferPolicy = .transfer, catalog: Catalog = .empty,
                clock: @escaping @Sendable () -> Int64) {
        self.transferPolicy = transferPolicy
        self.catalog = catalog
        self.clock = clock
        changeLogID = String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    public func write(_ write: FactsWrite) async throws -> WriteOutcome {
        let outcome = try applyWithChanges { facts, now in
            let previousOwners = (write.transactions.map(\.originalTransactionID)
                + write.renewalInfos.map(\.originalTransactionID)).compactMap { facts.chains[$0]?.ownerID }
            let outcome = try facts.maintainingRollup(transactions: write.transactions, reversedRefunds: [],
                                                      prices: write.prices) {
                try $0.record(write, transferPolicy: transferPolicy, now: now)
            }
            return (outcome, [write.userID] + previousOwners + outcome.refusals.map(\.ownerUserID))
        }
        if let refusal = outcome.refusals.first { throw StoreError.claimRefused(refusal, claimant: write.userID) }
        return outcome
    }

    public func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try applyWithChanges { facts, now in
            let outcome = try facts.maintainingRollup(
                transactions: notification.transactions, reversedRefunds: notification.reversedRefunds,
                prices: notification.prices) { try $0.apply(notification, now: now) }
            return (outcome, outcome.ownerUserIDs)
        }
    }

    /// Runs a write as the SQLite writer does: the changes time alone made by now first, then
    /// the write, then the changes it made to the users it returns, all under the one lock; the
    /// observers hear of new changes after it is released.
    func applyWithChanges<Outcome>(
        _ body: (inout StoredFacts, Int64) throws -> (Outcome, [String])
    ) throws -> Outcome {
        let now = clock()
        let (result, latest) = state.withLock { facts -> (Result<Outcome, any Error>, Int64?) in
            let before = facts.changeLog.latestSequence
            _ = facts.recordDueChanges(now: now, catalog: catalog, logID: changeLogID)
            facts.changeLog.eventsOfThisWrite = []
            let result = Result { try body(&facts, now) }
            if case let .success((_, users)) = result {
                _ = facts.recordChanges(of: users, now: now, catalog: catalog, logID: changeLogID)
            }
            facts.changeLog.eventsOfThisWrite = []
            let latest = facts.changeLog.latestSequence
            return (result.map(\.0), latest > before ? latest : nil)
        }
        if let latest { notifyChangesCommitted(latest) }
        return try result.get()
    }

    public func facts(userID: String) throws -> UserFacts {
        state.withLock { $0.facts(of: userID) }
    }

    public func history(userID: String, productID: String?, pageSize: Int, pageToken: String?) throws
        -> HistoryPage {
        let cursor = try HistoryCursor.parse(pageToken: pageToken)
        let limit = HistoryPage.clampedPageSize(pageSize)
        let events = state.withLock { facts in
            facts.history(of: userID, productID: productID, before: cursor, limit: limit + 1)
        }
        return HistoryPage(newestFirst: events, limit: limit)
    }
}
