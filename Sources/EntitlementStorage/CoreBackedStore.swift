import EntitlementPorts
import Entitlements

/// A store whose change log, outbox, reconciliation watermarks and history revisions are its
/// ``StoreCore``'s: both engines' stores (``EntitlementStore``, ``PostgresEntitlementStore``),
/// forwarding written once here instead of once per engine.
///
/// Public only because Swift lets a public requirement be met from a protocol extension alone
/// when that protocol is public; what it asks for, ``coreOperations``, is an opaque handle.
/// The read and write path (facts, history, write, apply) stays on each store, calling its
/// concrete, specialised core directly.
public protocol CoreBackedStore: EntitlementChangeLog, EntitlementChangeUpkeep, WebhookOutbox,
    ReconciliationProgress, TransactionHistoryRevisions, AccountTokens {
    /// The store's core, opaque outside this module.
    var coreOperations: StoreCoreOperations { get }
}

/// A ``StoreCore`` of either engine, behind one existential: these operations are a few per
/// commit or per run, never per CheckEntitlement, so the dynamic call costs nothing that shows.
public struct StoreCoreOperations: Sendable {
    let core: any StoreCoreForwarded

    init(_ core: any StoreCoreForwarded) {
        self.core = core
    }
}

/// What ``CoreBackedStore`` forwards; ``StoreCore`` has each under the port's own name.
protocol StoreCoreForwarded: Sendable {
    func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange]
    func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64)
    func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void)
    func recordDueChanges() async throws -> Int
    func nextDueInstant() throws -> Int64?
    func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int
    func writeOutbox(_ write: WebhookOutboxWrite) async throws -> WebhookOutboxAnswer
    func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery]
    func webhookStatus() throws -> [WebhookEndpointStatus]
    func reconciledThrough(_ environment: Environment) async throws -> Int64?
    func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws
    func historyRevision(originalTransactionID: String) async throws -> String?
    func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws
    func appAccountToken(userID: String) async throws -> String
    func userID(appAccountToken token: String) throws -> String?
    func owners(originalTransactionID: String) throws -> [ChainOwnership]
}

extension StoreCore: StoreCoreForwarded {}

/// The change log (issue 12): read on read connections, written by the writer with the facts
/// that cause each change, kept by the writer's own timer (due changes, pruning).
extension CoreBackedStore {
    public func changes(after sequence: Int64, userID: String?, limit: Int) throws -> [EntitlementChange] {
        try coreOperations.core.changes(after: sequence, userID: userID, limit: limit)
    }

    public func changeLogBounds() throws -> (oldestRetained: Int64, latest: Int64) {
        try coreOperations.core.changeLogBounds()
    }

    /// `observer` runs on the writer thread right after each commit that appended changes; on
    /// PostgreSQL also on the listener thread after other replicas' (and after a LISTEN reconnect).
    public func onChangesCommitted(_ observer: @escaping @Sendable (Int64) -> Void) {
        coreOperations.core.onChangesCommitted(observer)
    }

    /// Queued like a write; the writer also does this by itself at every due instant.
    public func recordDueChanges() async throws -> Int {
        try await coreOperations.core.recordDueChanges()
    }

    public func nextDueInstant() throws -> Int64? {
        try coreOperations.core.nextDueInstant()
    }

    /// Queued like a write; the writer also prunes by itself with ``EntitlementStore/Configuration/changeRetentionMs``.
    public func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) async throws -> Int {
        try await coreOperations.core.pruneChanges(occurredBefore: cutoffMs, limit: limit)
    }
}

/// The ``WebhookOutbox``: writes share the writer's group commit with facts writes (a batch of
/// delivery outcomes is one job, never one transaction per delivery), reads use the read
/// connections and never wait for the writer.
extension CoreBackedStore {
    public func registerWebhookEndpoints(_ urls: [String], latestSequence: Int64, nowMs: Int64) async throws
        -> [String: Int64] {
        try await coreOperations.core.writeOutbox(
            .register(urls: urls, latestSequence: latestSequence, nowMs: nowMs)).cursors
    }

    public func enqueueWebhooks(_ messages: [WebhookMessage], through: Int64, replay: Bool, nowMs: Int64)
        async throws -> Int {
        try await coreOperations.core.writeOutbox(
            .enqueue(messages: messages, through: through, replay: replay, nowMs: nowMs)).added
    }

    public func recordWebhookOutcomes(_ outcomes: [WebhookAttemptOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        _ = try await coreOperations.core.writeOutbox(.outcomes(outcomes))
    }

    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws -> [WebhookDelivery] {
        try coreOperations.core.dueWebhookDeliveries(endpoint: endpoint, nowMs: nowMs, limit: limit)
    }

    public func webhookStatus() throws -> [WebhookEndpointStatus] {
        try coreOperations.core.webhookStatus()
    }
}

/// The reconciliation watermarks and the Server API's history revisions, read and written on
/// the writer's connection between batches: once per run or per refresh, so the detour through
/// the writer thread costs nothing.
extension CoreBackedStore {
    public func reconciledThrough(_ environment: Environment) async throws -> Int64? {
        try await coreOperations.core.reconciledThrough(environment)
    }

    public func recordReconciled(_ environment: Environment, through unixMs: Int64) async throws {
        try await coreOperations.core.recordReconciled(environment, through: unixMs)
    }

    public func historyRevision(originalTransactionID: String) async throws -> String? {
        try await coreOperations.core.historyRevision(originalTransactionID: originalTransactionID)
    }

    public func recordHistoryRevision(_ revision: String, originalTransactionID: String) async throws {
        try await coreOperations.core.recordHistoryRevision(revision, originalTransactionID: originalTransactionID)
    }
}

/// App account tokens and chain owners (``AccountTokens``).
extension CoreBackedStore {
    public func appAccountToken(userID: String) async throws -> String {
        try await coreOperations.core.appAccountToken(userID: userID)
    }

    public func userID(appAccountToken token: String) throws -> String? {
        try coreOperations.core.userID(appAccountToken: token)
    }

    public func owners(originalTransactionID: String) throws -> [ChainOwnership] {
        try coreOperations.core.owners(originalTransactionID: originalTransactionID)
    }
}
