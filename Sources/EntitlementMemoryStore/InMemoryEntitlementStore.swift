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
    private let state = Mutex(StoredFacts())
    let reconciledThrough = Mutex<[Environment: Int64]>([:])
    private let transferPolicy: TransferPolicy
    private let clock: @Sendable () -> Int64

    /// `clock` gives Unix milliseconds: when a chain changed owner (the transfer event's date).
    public init(transferPolicy: TransferPolicy = .transfer, clock: @escaping @Sendable () -> Int64) {
        self.transferPolicy = transferPolicy
        self.clock = clock
    }

    public func write(_ write: FactsWrite) async throws -> WriteOutcome {
        let now = clock()
        return try state.withLock { facts in
            try facts.record(write, transferPolicy: transferPolicy, now: now)
        }
    }

    public func apply(_ notification: NotificationWrite) async throws -> NotificationOutcome {
        try state.withLock { facts in try facts.apply(notification) }
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
