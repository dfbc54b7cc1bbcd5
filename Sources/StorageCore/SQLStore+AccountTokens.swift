import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime
import StorageTables

/// Facts writes, app account tokens and chain owners, once for every engine
/// (``EntitlementRepository/write(_:)``, ``AccountTokens``).
extension SQLStore: EntitlementRepository, AccountTokens {
    /// Stores `write`; returns once it is durable and visible to ``facts(userID:)``.
    /// Queues `write`; a refused claim committed its refusal events and is thrown here, so the
    /// caller learns of it only once the owner's history holds the attempt.
    public nonisolated func write(_ write: FactsWrite) async throws -> WriteOutcome {
        let outcome = try await submit { .write(write, $0) }
        if let refusal = outcome.refusals.first { throw StoreError.claimRefused(refusal, claimant: write.userID) }
        return outcome
    }

    /// Read first (every call after the first is a read), off the writer thread; issued on the
    /// writer otherwise. Two replicas issuing at once both insert under the unique keys, one row
    /// wins, and both answer the row that is there.
    public nonisolated func appAccountToken(userID: String) async throws -> String {
        if let token = try read("reading an app account token", { try $0.token(ofUser: userID) }) {
            return token
        }
        guard let token = try await issueAppAccountToken(userID: userID) else {
            throw StoreError(code: .storageFailure, message: "no app account token was stored for the user; retry")
        }
        return token
    }

    private func issueAppAccountToken(userID: String) throws -> String? {
        let now = clock
        return try onWriter("issuing an app account token") { db in
            try db.transaction(beginning: DB.beginWrite) {
                let ensure = try db.prepare(AccountTokenSQL.ensureUser)
                ensure.bind(userID, at: 1)
                ensure.bind(now(), at: 2)
                try ensure.execute()
                let find = try db.prepare(AccountTokenSQL.userRow)
                find.bind(userID, at: 1)
                guard try find.step() else {
                    find.reset()
                    throw StoreError(code: .storageFailure, message: "a user row vanished while issuing a token")
                }
                let userRow = find.int64(at: 0)
                find.reset()
                let insert = try db.prepare(AccountTokenSQL.issue)
                insert.bind(AppAccountToken.random(), at: 1)
                insert.bind(userRow, at: 2)
                insert.bind(now(), at: 3)
                try insert.execute()
                let select = try db.prepare(AccountTokenSQL.tokenOfUser)
                select.bind(userID, at: 1)
                defer { select.reset() }
                return try select.step() ? select.string(at: 0) : nil
            }
        }
    }

    public nonisolated func userID(appAccountToken token: String) throws -> String? {
        guard let canonical = AppAccountToken.canonical(token) else { return nil }
        return try read("reading an app account token's user") { try $0.user(ofToken: canonical) }
    }

    public nonisolated func owners(originalTransactionID: String) throws -> [ChainOwnership] {
        try read("reading a chain's owners") { try $0.owners(originalTransactionID: originalTransactionID) }
    }
}

extension StoreReader {
    package func token(ofUser userID: String) throws -> String? {
        let select = try db.prepare(AccountTokenSQL.tokenOfUser)
        select.bind(userID, at: 1)
        defer { select.reset() }
        return try select.step() ? select.string(at: 0) : nil
    }

    package func user(ofToken token: String) throws -> String? {
        let select = try db.prepare(AccountTokenSQL.userOfToken)
        select.bind(token, at: 1)
        defer { select.reset() }
        return try select.step() ? select.string(at: 1) : nil
    }

    /// The chain's owners from its row and the transfer events in its former owners' histories.
    ///
    /// A transfer event's id begins `ownership_transfer:<chain>:` and is kept as text, so the
    /// transfers of one chain are a range of the unique index on `event_id`, not a scan.
    package func owners(originalTransactionID chainID: String) throws -> [ChainOwnership] {
        let current = try db.prepare("""
            SELECT u.user_id, c.owned_since_ms FROM chains c LEFT JOIN users u ON u.id = c.user_rowid
            WHERE c.original_transaction_id = ?
            """)
        DB.bindDecimalID(chainID, at: 1, of: current)
        guard try current.step() else {
            current.reset()
            return []
        }
        let owner = current.optionalString(at: 0)
        let ownedSince = current.optionalInt64(at: 1)
        current.reset()

        let prefix = "ownership_transfer:\(chainID):"
        let eventID = DB.historyEventIDText("h.event_id")
        let select = try db.prepare("""
            SELECT \(HistoryEvent.historyColumns(eventID: eventID)), u.user_id
            FROM \(HistoryEvent.historyFrom) JOIN users u ON u.id = h.user_rowid
            WHERE h.event_id >= ? AND h.event_id < ?
            """)
        select.bind(prefix, at: 1)
        select.bind(String(prefix.dropLast()) + ";", at: 2)
        var transfers: [(previousOwner: String, event: HistoryEvent)] = []
        while try select.step() {
            transfers.append((select.string(at: 12), HistoryEvent(row: select)))
        }
        select.reset()
        return ChainOwnership.timeline(
            transfers: transfers, currentOwner: owner, currentSinceMs: ownedSince,
            firstSeen: { user in
                let events = (try? self.history(userID: user, productID: nil, before: nil, limit: 10_000)) ?? []
                return events.filter {
                    $0.originalTransactionID == chainID && $0.kind != .claimRefused
                        && $0.kind != .ownershipTransfer
                }.map(\.occurredAtMs).min()
            })
    }
}
