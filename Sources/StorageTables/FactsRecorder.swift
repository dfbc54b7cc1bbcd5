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
package final class FactsRecorder<DB: StorageEngine> {
    package let db: DB
    package let clock: UnixClock
    package let transferPolicy: TransferPolicy
    /// The statements every write runs (see ``Statements``).
    package let statements: Statements
    /// History events added to users' histories (by user row) since the change recorder last
    /// took them: what a change names as its cause (``ChangeCause``). Kept in ``tally``.
    package var addedEvents: [(owner: Int64, event: HistoryEvent)] {
        get { tally.addedEvents }
        set { tally.addedEvents = newValue }
    }
    /// What the deferred statements of the write in progress report as their results are read.
    package var tally = Tally()
    /// Product and group ids the write in progress has already found or stored in
    /// `product_names`, with their rows (``productNameRow(_:)``); emptied as each write or
    /// notification starts. Only for the write's own length: a rollback undoes a write as a
    /// whole, so a name it stored stays until it ends, while one stored by an earlier write may
    /// have been rolled back since (and its row id reused for another name).
    package var namesStoredThisWrite: [(name: String, row: Int64)] = []
    /// The daily rollup contributions of each chain (by row) the open transaction has changed,
    /// as they were before its first change (``noteRollupChain(_:isNew:)``); added to the rollup
    /// and emptied by ``applyRollup()`` before COMMIT.
    package var rollupBefore: [Int64: [RollupKey: Int64]] = [:]
    /// Product and group ids a committed transaction holds, with their rows: a name's row is
    /// never deleted or changed, so once committed it is the name's for good, on every replica
    /// sharing the database. Saves a lookup (a round trip on a server) per name per write.
    /// Filled only after COMMIT (``rememberCommittedNames()``), never from a write in progress,
    /// whose names a rollback may undo.
    package var committedNames: [ExactID: Int64] = [:]
    /// The user rows the write in progress found or created, by user id: what the change
    /// recorder would otherwise look up again (emptied as each write starts, as a rollback
    /// undoes a created row with its write).
    package var writeUserRows: [ExactID: Int64] = [:]
    /// The names the open batch's successful writes hold (``keepWriteNames()``).
    package var batchNames: [(name: String, row: Int64)] = []
    /// The write in progress's new transactions and events not sent yet (``flushRowLists()``).
    package var rowLists = RowLists()
    /// First stages of the batch's next notifications, sent and read with an earlier one's, in
    /// the order they run (``takeFirstStage(for:)``); the writer empties it before each attempt.
    package var firstStagesAhead: [NotificationFirstStage] = []

    package init(db: DB, transferPolicy: TransferPolicy, clock: @escaping UnixClock) throws {
        self.db = db
        self.transferPolicy = transferPolicy
        self.clock = clock
        statements = try Statements(db)
    }

    /// Applies `write`; adds every user whose facts or history changed to `affectedUsers`.
    ///
    /// Ownership is decided for every chain first (``ClaimRules``): a refused claim writes
    /// nothing but the refusal's event in the keeper's history and reports it in
    /// ``WriteOutcome/refusals`` (the store then throws), and a conflict under the reject policy
    /// throws before anything is written.
    package func record(_ write: FactsWrite, affectedUsers: inout Set<ExactID>) throws -> WriteOutcome {
        let outcome = try recordLeavingResultsUnread(write, affectedUsers: &affectedUsers)
        try db.flushDeferred()
        return outcome()
    }

    /// ``record(_:affectedUsers:)`` without waiting for its deferred statements' results: the
    /// returned closure gives the outcome once they are read (by the connection's next wait or
    /// ``SQLConnection/flushDeferred()``), so a writer can read them with its next statements.
    package func recordLeavingResultsUnread(_ write: FactsWrite, affectedUsers: inout Set<ExactID>) throws
        -> () -> WriteOutcome {
        let tally = Tally()
        self.tally = tally
        rowLists = RowLists()
        writeUserRows.removeAll(keepingCapacity: true)
        defer { dropPrefetches() }
        try prefetchFirstReads(of: write)
        let outcome = try recordFacts(write, affectedUsers: &affectedUsers)
        return {
            var complete = outcome
            complete.newEvents += tally.newEvents
            if let processed = tally.sourceWasProcessed { complete.alreadyProcessed = processed }
            return complete
        }
    }

    private func recordFacts(_ write: FactsWrite, affectedUsers: inout Set<ExactID>) throws -> WriteOutcome {
        namesStoredThisWrite.removeAll(keepingCapacity: true)
        let now = clock()
        var outcome = WriteOutcome()
        let claims = try decideClaims(write)
        let refusals = claims.compactMap { claim -> (ClaimRefusal, Int64)? in
            guard case let .refuse(reason, keptBy) = claim.decision, let row = claim.keeperRow else { return nil }
            return (ClaimRefusal(reason: reason, originalTransactionID: claim.chainID, ownerUserID: keptBy), row)
        }
        if !refusals.isEmpty {
            for (refusal, keeperRow) in refusals {
                let sample = write.transactions.first {
                    $0.originalTransactionID.hasSameBytes(as: refusal.originalTransactionID)
                }
                let event = HistoryDerivation.claimRefused(
                    originalTransactionID: refusal.originalTransactionID, productID: sample?.productID ?? "",
                    claimantUserID: write.userID, occurredAtMs: now, environment: sample?.environment ?? .production,
                    source: write.source)
                if try insert(event, userRow: keeperRow) { outcome.newEvents += 1 }
                affectedUsers.insert(ExactID(refusal.ownerUserID))
            }
            outcome.refusals = refusals.map(\.0)
            return outcome
        }
        if let conflict = claims.first(where: { $0.decision == .conflict }) {
            throw StoreError.ownershipConflict(originalTransactionID: conflict.chainID)
        }
        let firstNewChain = claims.first { $0.stored == nil }?.chainID
        let (userRow, firstNewChainRow) = try userRowAndNewChain(write.userID, newChainID: firstNewChain, now: now)
        if let sourceID = write.sourceID {
            // Only reported: nothing below depends on it, so it need not be waited for.
            try db.executeDeferred(bindMarkProcessed(write.source, sourceID, userRow: userRow, now: now)) {
                [tally] in tally.sourceWasProcessed = $0 == 0
            }
        }
        affectedUsers.insert(ExactID(write.userID))

        var chainRows: [ExactID: (row: Int64, isNew: Bool)] = [:]
        for claim in claims {
            let sample = write.transactions.first { $0.originalTransactionID.hasSameBytes(as: claim.chainID) }
            if let row = firstNewChainRow, let firstNewChain, claim.stored == nil,
               claim.chainID.hasSameBytes(as: firstNewChain) {
                chainRows[ExactID(claim.chainID)] = (row, true)
            } else {
                chainRows[ExactID(claim.chainID)] = try take(claim, for: write, userRow: userRow, sample: sample,
                                                             now: now, affectedUsers: &affectedUsers,
                                                             outcome: &outcome)
            }
            if case .take = claim.decision, !claim.carriesToken {
                outcome.tokenlessChainsTaken.append(claim.chainID)
            }
        }
        // Transactions of chains this write created are looked up at once; when none is stored
        // (the common case), each is inserted without waiting (a repeated one as before).
        let inNewChains = write.transactions.filter { chainRows[ExactID($0.originalTransactionID)]?.isNew == true }
        var absent = Set<ExactID>()
        if !inNewChains.isEmpty, try noneStored(inNewChains.map(\.transactionID)) {
            absent = Set(inNewChains.map { ExactID($0.transactionID) })
        }
        for transaction in write.transactions {
            let chain = chainRows[chainRows.index(forKey: ExactID(transaction.originalTransactionID))!]
            let isAbsent = chain.value.isNew && absent.remove(ExactID(transaction.transactionID)) != nil
            let stored = try store(transaction, chainRow: chain.value.row, chainID: chain.key.text,
                                   source: write.source, chainIsNew: chain.value.isNew, isAbsent: isAbsent)
            if stored.isNew { outcome.newTransactions += 1 }
            for event in stored.events { try insertDeferred(event, userRow: userRow, target: stored.target) }
        }
        try flushRowLists()
        try recordPrices(write.prices)
        for info in write.renewalInfos {
            try upsert(info, chainRow: chainRows[ExactID(info.originalTransactionID)]!.row)
        }
        return outcome
    }

    // MARK: Users, sources, chains

    package func userRowID(_ userID: String, now: Int64) throws -> Int64 {
        let find = statements.findUser
        find.bind(userID, at: 1)
        defer { find.reset() }
        let row: Int64
        if try find.step() {
            row = find.int64(at: 0)
        } else {
            let insert = statements.insertUser
            insert.bind(userID, at: 1)
            insert.bind(now, at: 2)
            row = try returnedID(insert)
        }
        writeUserRows[ExactID(userID)] = row
        return row
    }

    /// Records the source as processed; returns whether it already was.
    ///
    /// A notification has no user (`userRow` nil): it is about chains, whoever owns them.
    package func markProcessed(
        _ source: HistoryEvent.Source, _ sourceID: String, userRow: Int64?, now: Int64
    ) throws -> Bool {
        try bindMarkProcessed(source, sourceID, userRow: userRow, now: now).execute()
        return db.changes == 0
    }

    package func bindMarkProcessed(_ source: HistoryEvent.Source, _ sourceID: String, userRow: Int64?, now: Int64)
        -> DB.Statement {
        let insert = statements.markProcessed
        insert.bind(source.rawValue, at: 1)
        insert.bind(sourceID, at: 2)
        insert.bind(userRow, at: 3)
        insert.bind(now, at: 4)
        return insert
    }

    /// The chain's row, created for, bound to or moved to the writing user as `claim` decided,
    /// and whether this write created it.
    ///
    /// A chain a notification created without an owner is bound, not transferred: nobody loses
    /// it, so no transfer event is recorded; its waiting events join the user's history in this
    /// same transaction.
    private func take(
        _ claim: Claim, for write: FactsWrite, userRow: Int64, sample: Transaction?, now: Int64,
        affectedUsers: inout Set<ExactID>, outcome: inout WriteOutcome
    ) throws -> (row: Int64, isNew: Bool) {
        guard let chain = claim.stored else {
            return (try insertChain(claim.chainID, userRow: userRow, now: now), true)
        }
        guard case .take = claim.decision else { return (chain.row, false) }
        try moveChain(chain, chainID: claim.chainID, to: userRow, userID: write.userID,
                      productID: sample?.productID ?? "", environment: sample?.environment ?? .production,
                      source: write.source, now: now, newEvents: &outcome.newEvents)
        if let ownerID = chain.ownerID {
            affectedUsers.insert(ExactID(ownerID))
            outcome.ownershipTransfers += 1
        }
        return (chain.row, false)
    }
}

extension FactsRecorder {
    /// One write's deferred results, counted as they are read: a write's results may be read
    /// while the next write runs, so each write counts into its own.
    package final class Tally {
        /// See ``FactsRecorder/addedEvents``.
        package var addedEvents: [(owner: Int64, event: HistoryEvent)] = []
        /// Events the write's deferred inserts added (``insertDeferred(_:userRow:target:)``).
        package var newEvents = 0
        /// Whether the write's source was processed already, once its deferred insert is read.
        package var sourceWasProcessed: Bool?

        package init() {}
    }
}
