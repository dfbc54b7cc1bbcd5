import EntitlementPorts
import SQLDatabase

/// The first reads of a write, sent together ahead of time (``SQLConnection/prefetch(_:)``):
/// on a server they then share one wait instead of taking one each. Nothing on SQLite.
extension FactsRecorder {
    /// Sends the lookups a write or notification starts with: its user (`userID`, a write's),
    /// its first chain, and whether `transactionIDs` are stored (when one lookup holds them),
    /// each bound as the read that takes its rows binds it. A read that binds something else
    /// runs afresh (the engine drops the prefetched rows), and ``dropPrefetches()`` forgets
    /// those a write never read, so none answers a later write with rows from before it.
    package func prefetchFirstReads(userID: String?, chainID: String?, transactionIDs: [String]) throws {
        if let userID {
            statements.findUser.bind(userID, at: 1)
            try db.prefetch(statements.findUser)
        }
        if let chainID {
            DB.bindDecimalID(chainID, at: 1, of: statements.findChain)
            try db.prefetch(statements.findChain)
        }
        if !transactionIDs.isEmpty, transactionIDs.count <= FactsRecorderSQL.lookupWidths.last! {
            let (find, _) = bindLookup(transactionIDs[...])
            try db.prefetch(find)
        }
    }

    /// ``prefetchFirstReads(userID:chainID:transactionIDs:)`` for `write`; sends nothing again
    /// that was sent for it already (by the writer, ahead of it).
    package func prefetchFirstReads(of write: FactsWrite) throws {
        try prefetchFirstReads(userID: write.userID,
                               chainID: write.transactions.first?.originalTransactionID
                                   ?? write.renewalInfos.first?.originalTransactionID,
                               transactionIDs: write.transactions.map(\.transactionID))
    }

    /// Resets the statements ``prefetchFirstReads(userID:chainID:transactionIDs:)`` may have sent.
    package func dropPrefetches() {
        statements.findUser.reset()
        statements.findChain.reset()
        for find in statements.anyTransactionStored { find.reset() }
        statements.insertOwnerlessChainUnlessStored?.reset()
        statements.insertChainOfUserID?.reset()
        for lane in statements.aheadLanes { lane.reset() }
    }

    /// The writing user's row, created when new; with it, when the user is new and
    /// `newChainID` names a chain the write creates for them, that chain's row: the two inserts
    /// then go together (one wait on a server instead of two), where the engine returns ids.
    package func userRowAndNewChain(_ userID: String, newChainID: String?, now: Int64) throws
        -> (user: Int64, chain: Int64?) {
        let find = statements.findUser
        find.bind(userID, at: 1)
        defer { find.reset() }
        if try find.step() {
            let row = find.int64(at: 0)
            writeUserRows[ExactID(userID)] = row
            return (row, nil)
        }
        let insert = statements.insertUser
        insert.bind(userID, at: 1)
        insert.bind(now, at: 2)
        guard let newChainID, let chainInsert = statements.insertChainOfUserID else {
            let row = try returnedID(insert)
            writeUserRows[ExactID(userID)] = row
            return (row, nil)
        }
        // The user's insert first, so the chain's finds its row.
        try db.prefetch(insert)
        DB.bindDecimalID(newChainID, at: 1, of: chainInsert)
        chainInsert.bind(now, at: 2)
        chainInsert.bind(userID, at: 3)
        try db.prefetch(chainInsert)
        let row = try returnedID(insert)
        writeUserRows[ExactID(userID)] = row
        defer { chainInsert.reset() }
        return (row, try chainInsert.step() ? chainInsert.int64(at: 0) : nil)
    }

    /// Sends the insert of a notification's first chain in case it is new, after its lookup (so
    /// the lookup does not see it); a stored chain is left alone. Only where the engine returns
    /// the new row's id; returns whether it was sent.
    package func prefetchOwnerlessChain(_ chainID: String) throws -> Bool {
        guard let insert = statements.insertOwnerlessChainUnlessStored else { return false }
        DB.bindDecimalID(chainID, at: 1, of: insert)
        try db.prefetch(insert)
        return true
    }

    /// The row the sent insert created for `chainID`, or one inserted now when it created none
    /// (nothing was sent, or the engine ran nothing ahead).
    package func ownerlessChainRow(_ chainID: String, sent: Bool, now: Int64) throws -> Int64 {
        if sent, let insert = statements.insertOwnerlessChainUnlessStored {
            DB.bindDecimalID(chainID, at: 1, of: insert)
            defer { insert.reset() }
            if try insert.step() { return insert.int64(at: 0) }
        }
        return try insertChain(chainID, userRow: nil, now: now)
    }

    /// The narrowest ``FactsRecorderSQL/anyTransactionStored(width:)`` statement for the first
    /// ids of `ids`, bound (a shorter list repeats its last id); and how many ids it took.
    package func bindLookup(_ ids: ArraySlice<String>) -> (DB.Statement, Int) {
        bindLookup(ids, in: statements.anyTransactionStored)
    }

    /// ``bindLookup(_:)`` choosing among `lookups`, one per ``FactsRecorderSQL/lookupWidths``.
    package func bindLookup(_ ids: ArraySlice<String>, in lookups: [DB.Statement]) -> (DB.Statement, Int) {
        let widths = FactsRecorderSQL.lookupWidths
        let choice = widths.firstIndex { $0 >= ids.count } ?? widths.count - 1
        let width = widths[choice]
        let chunk = ids.prefix(width)
        let find = lookups[choice]
        for index in 0..<width {
            DB.bindDecimalID(chunk[chunk.startIndex + min(index, chunk.count - 1)], at: Int32(index + 1), of: find)
        }
        return (find, chunk.count)
    }
}
