import EntitlementPorts
import Entitlements
import SQLDatabase
import ServiceRuntime

/// Records one ``FactsWrite`` or ``NotificationWrite`` inside the writer's open transaction.
///
/// Runs on the writer thread only. It throws on an ownership conflict (under
/// ``TransferPolicy/reject``) or a SQLite failure; the caller wraps each write in a savepoint,
/// so a throw undoes exactly this write. Every insert is idempotent (unique keys, ON CONFLICT),
/// which is what makes replays harmless.
final class FactsRecorder<DB: StorageEngine> {
    let db: DB
    let clock: UnixClock
    private let transferPolicy: TransferPolicy
    /// The statements every write runs (see ``Statements``).
    let statements: Statements
    /// History events added to users' histories (by user row) since the change recorder last
    /// took them: what a change names as its cause (``ChangeCause``).
    var addedEvents: [(owner: Int64, event: HistoryEvent)] = []
    /// Product and group ids the write in progress has already found or stored in
    /// `product_names`, with their rows (``productNameRow(_:)``); emptied as each write or
    /// notification starts. Only for the write's own length: a rollback undoes a write as a
    /// whole, so a name it stored stays until it ends, while one stored by an earlier write may
    /// have been rolled back since (and its row id reused for another name).
    var namesStoredThisWrite: [(name: String, row: Int64)] = []

    init(db: DB, transferPolicy: TransferPolicy, clock: @escaping UnixClock) throws {
        self.db = db
        self.transferPolicy = transferPolicy
        self.clock = clock
        statements = try Statements(db)
    }

    /// Applies `write`; adds every user whose facts or history changed to `affectedUsers`.
    func record(_ write: FactsWrite, affectedUsers: inout Set<ExactID>) throws -> WriteOutcome {
        namesStoredThisWrite.removeAll(keepingCapacity: true)
        let now = clock()
        let userRow = try userRowID(write.userID, now: now)
        var outcome = WriteOutcome()
        if let sourceID = write.sourceID {
            outcome.alreadyProcessed = try markProcessed(write.source, sourceID, userRow: userRow, now: now)
        }
        affectedUsers.insert(ExactID(write.userID))

        var chainRows: [ExactID: (row: Int64, isNew: Bool)] = [:]
        let chainIDs = write.transactions.map(\.originalTransactionID)
            + write.renewalInfos.map(\.originalTransactionID)
        for chainID in chainIDs where chainRows[ExactID(chainID)] == nil {
            let sample = write.transactions.first { $0.originalTransactionID.hasSameBytes(as: chainID) }
            chainRows[ExactID(chainID)] = try claimChain(chainID, for: write, userRow: userRow, sample: sample,
                                                now: now, affectedUsers: &affectedUsers,
                                                outcome: &outcome)
        }
        for transaction in write.transactions {
            let chain = chainRows[chainRows.index(forKey: ExactID(transaction.originalTransactionID))!]
            let stored = try store(transaction, chainRow: chain.value.row, chainID: chain.key.text,
                                   source: write.source, chainIsNew: chain.value.isNew)
            if stored.isNew { outcome.newTransactions += 1 }
            for event in stored.events where try insert(event, userRow: userRow, target: stored.target) {
                outcome.newEvents += 1
            }
        }
        for info in write.renewalInfos {
            try upsert(info, chainRow: chainRows[ExactID(info.originalTransactionID)]!.row)
        }
        return outcome
    }

    // MARK: Users, sources, chains

    private func userRowID(_ userID: String, now: Int64) throws -> Int64 {
        let find = statements.findUser
        find.bind(userID, at: 1)
        defer { find.reset() }
        if try find.step() { return find.int64(at: 0) }
        let insert = statements.insertUser
        insert.bind(userID, at: 1)
        insert.bind(now, at: 2)
        return try returnedID(insert)
    }

    /// Records the source as processed; returns whether it already was.
    ///
    /// A notification has no user (`userRow` nil): it is about chains, whoever owns them.
    func markProcessed(
        _ source: HistoryEvent.Source, _ sourceID: String, userRow: Int64?, now: Int64
    ) throws -> Bool {
        let insert = statements.markProcessed
        insert.bind(source.rawValue, at: 1)
        insert.bind(sourceID, at: 2)
        insert.bind(userRow, at: 3)
        insert.bind(now, at: 4)
        try insert.execute()
        return db.changes == 0
    }

    /// The chain's row, created for, bound to or moved to the writing user, and whether this
    /// write created it.
    ///
    /// A chain a notification created without an owner is bound, not transferred: nobody loses
    /// it, so the transfer policy does not apply and no transfer event is recorded; its waiting
    /// events join the user's history in this same transaction.
    private func claimChain(
        _ chainID: String, for write: FactsWrite, userRow: Int64, sample: Transaction?, now: Int64,
        affectedUsers: inout Set<ExactID>, outcome: inout WriteOutcome
    ) throws -> (row: Int64, isNew: Bool) {
        guard let chain = try findChain(chainID) else {
            return (try insertChain(chainID, userRow: userRow, now: now), true)
        }
        guard let ownerRow = chain.ownerRow, let ownerID = chain.ownerID else {
            try setOwner(of: chain.row, to: userRow, now: now)
            outcome.newEvents += try adoptPendingEvents(chainRow: chain.row, userRow: userRow)
            return (chain.row, false)
        }
        guard ownerRow != userRow else { return (chain.row, false) }

        guard transferPolicy == .transfer else {
            throw StoreError.ownershipConflict(originalTransactionID: chainID)
        }
        try setOwner(of: chain.row, to: userRow, now: now)
        let transfer = HistoryDerivation.ownershipTransfer(
            originalTransactionID: chainID, productID: sample?.productID ?? "",
            toUserID: write.userID, occurredAtMs: now,
            environment: sample?.environment ?? .production, source: write.source)
        if try insert(transfer, userRow: ownerRow) { outcome.newEvents += 1 }
        affectedUsers.insert(ExactID(ownerID))
        return (chain.row, false)
    }
}
