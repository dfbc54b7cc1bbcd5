import Entitlements
import SQLDatabase

/// Keeps the `user_facts` read model in step with the tables (see ``UserFactsRecord``).
extension FactsRecorder {
    /// Rewrites the record of each user in `userIDs` from the tables, or from `known` facts
    /// already read from them after the user's last write in this transaction.
    ///
    /// The writer calls it inside the batch's transaction, after the writes and before COMMIT,
    /// with the same users whose cache entries it then invalidates: a record therefore commits
    /// together with every change to its user's facts, and is never older than the tables.
    /// `known` must hold only facts read (``UserFacts/readTables(_:userID:)``) after the last
    /// change to that user in this transaction; the writer keeps each successful write's.
    /// After a write of the batch succeeded: the names it holds commit with the batch.
    package func keepWriteNames() {
        batchNames += namesStoredThisWrite
    }

    /// After COMMIT: the names the batch's successful writes held and its records were built
    /// with (looked up afresh by ``refreshRecords(for:known:)``, after every write) are
    /// committed, so later writes skip their lookups. Bounded: a catalog has far fewer
    /// product and group ids.
    package func rememberCommittedNames() {
        for (name, row) in batchNames + namesStoredThisWrite where committedNames.count < WriterLimits.committedNames {
            committedNames[ExactID(name)] = row
        }
        batchNames = []
    }

    package func refreshRecords(for userIDs: some Sequence<ExactID>, known: [ExactID: UserFacts] = [:]) throws {
        let tables = statements.userFactsFromTables
        let upsert = statements.upsertUserFactsRecord
        // The records refer to product and group ids by the rows this transaction holds, and
        // commit with them. Looked up afresh, not taken from the batch's last write: if that
        // write's savepoint was rolled back, a row it stored is gone (and its id may come back
        // with another name).
        namesStoredThisWrite.removeAll(keepingCapacity: true)
        for user in userIDs {
            let userID = user.text
            let facts = try known[user] ?? UserFacts.readTables(tables, userID: userID)
            let record = UserFactsRecord.encode(facts) { name in (try? knownProductNameRow(name)) ?? nil }
            upsert.bind(UserKey.of(userID), at: 1)
            upsert.bind(userID, at: 2)
            upsert.bind(blob: record, at: 3)
            try db.executeDeferred(upsert)
        }
    }
}

extension WriterLimits {
    package static let committedNames = 10_000
}
