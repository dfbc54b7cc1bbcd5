import Entitlements
import SQLite

/// Records one ``FactsWrite`` inside the writer connection's open transaction.
///
/// Runs on the writer thread only. It throws on an ownership conflict (under
/// ``TransferPolicy/reject``) or a SQLite failure; the caller wraps each write in a savepoint,
/// so a throw undoes exactly this write. Every insert is idempotent (unique keys, ON CONFLICT),
/// which is what makes replays harmless.
final class FactsRecorder {
    let db: Connection
    private let transferPolicy: TransferPolicy
    private let clock: @Sendable () -> Int64

    init(db: Connection, transferPolicy: TransferPolicy, clock: @escaping @Sendable () -> Int64) {
        self.db = db
        self.transferPolicy = transferPolicy
        self.clock = clock
    }

    /// Applies `write`; adds every user whose facts or history changed to `affectedUsers`.
    func record(_ write: FactsWrite, affectedUsers: inout Set<String>) throws -> WriteOutcome {
        let now = clock()
        let userRow = try userRowID(write.userID, now: now)
        var outcome = WriteOutcome()
        if let sourceID = write.sourceID {
            outcome.alreadyProcessed = try markProcessed(write.source, sourceID, userRow: userRow, now: now)
        }
        affectedUsers.insert(write.userID)

        var chainRows: [String: Int64] = [:]
        let chainIDs = write.transactions.map(\.originalTransactionID)
            + write.renewalInfos.map(\.originalTransactionID)
        for chainID in chainIDs where chainRows[chainID] == nil {
            let sample = write.transactions.first { $0.originalTransactionID == chainID }
            chainRows[chainID] = try claimChain(chainID, for: write, userRow: userRow, sample: sample,
                                                now: now, affectedUsers: &affectedUsers,
                                                outcome: &outcome)
        }
        for transaction in write.transactions {
            let chainRow = chainRows[transaction.originalTransactionID]!
            let stored = try storedTransaction(transaction.transactionID)
            let events = HistoryDerivation.events(incoming: transaction, stored: stored?.value,
                                                  source: write.source)
            if let stored {
                let merged = stored.value.merged(with: transaction)
                if merged != stored.value { try update(merged, row: stored.row) }
            } else {
                try insert(transaction, chainRow: chainRow)
                outcome.newTransactions += 1
            }
            for event in events where try insert(event, userRow: userRow) {
                outcome.newEvents += 1
            }
        }
        for info in write.renewalInfos {
            try upsert(info, chainRow: chainRows[info.originalTransactionID]!)
        }
        for event in write.events where try insert(event, userRow: userRow) {
            outcome.newEvents += 1
        }
        return outcome
    }

    // MARK: Users, sources, chains

    private func userRowID(_ userID: String, now: Int64) throws -> Int64 {
        let find = try db.prepare("SELECT id FROM users WHERE user_id = ?")
        find.bind(userID, at: 1)
        defer { find.reset() }
        if try find.step() { return find.int64(at: 0) }
        let insert = try db.prepare("INSERT INTO users (user_id, created_at_ms) VALUES (?, ?)")
        insert.bind(userID, at: 1)
        insert.bind(now, at: 2)
        try insert.execute()
        return db.lastInsertRowID
    }

    /// Records the source as processed; returns whether it already was.
    private func markProcessed(
        _ source: HistoryEvent.Source, _ sourceID: String, userRow: Int64, now: Int64
    ) throws -> Bool {
        let insert = try db.prepare("""
            INSERT INTO processed_sources (source, source_id, user_rowid, processed_at_ms)
            VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        insert.bind(source.rawValue, at: 1)
        insert.bind(sourceID, at: 2)
        insert.bind(userRow, at: 3)
        insert.bind(now, at: 4)
        try insert.execute()
        return db.changes == 0
    }

    /// The chain's row, created for or moved to the writing user per the transfer policy.
    private func claimChain(
        _ chainID: String, for write: FactsWrite, userRow: Int64, sample: Transaction?, now: Int64,
        affectedUsers: inout Set<String>, outcome: inout WriteOutcome
    ) throws -> Int64 {
        let find = try db.prepare("""
            SELECT c.id, c.user_rowid, u.user_id FROM chains c JOIN users u ON u.id = c.user_rowid
            WHERE c.original_transaction_id = ?
            """)
        find.bind(chainID, at: 1)
        guard try find.step() else {
            find.reset()
            let insert = try db.prepare(
                "INSERT INTO chains (original_transaction_id, user_rowid, owned_since_ms) VALUES (?, ?, ?)")
            insert.bind(chainID, at: 1)
            insert.bind(userRow, at: 2)
            insert.bind(now, at: 3)
            try insert.execute()
            return db.lastInsertRowID
        }
        let chainRow = find.int64(at: 0)
        let ownerRow = find.int64(at: 1)
        let ownerID = find.string(at: 2)
        find.reset()
        guard ownerRow != userRow else { return chainRow }

        guard transferPolicy == .transfer else {
            throw StoreError(
                code: .ownershipConflict,
                message: "original transaction \(chainID) belongs to another user; "
                    + "submit it as that user, or run with the transfer ownership policy")
        }
        let move = try db.prepare("UPDATE chains SET user_rowid = ?, owned_since_ms = ? WHERE id = ?")
        move.bind(userRow, at: 1)
        move.bind(now, at: 2)
        move.bind(chainRow, at: 3)
        try move.execute()
        let transfer = HistoryDerivation.ownershipTransfer(
            originalTransactionID: chainID, productID: sample?.productID ?? "",
            toUserID: write.userID, occurredAtMs: now,
            environment: sample?.environment ?? .production, source: write.source)
        if try insert(transfer, userRow: ownerRow) { outcome.newEvents += 1 }
        affectedUsers.insert(ownerID)
        return chainRow
    }
}
