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
    func refreshRecords(for userIDs: some Sequence<ExactID>, known: [ExactID: UserFacts] = [:]) throws {
        let tables = statements.userFactsFromTables
        let upsert = statements.upsertUserFactsRecord
        // Rows of product and group ids, looked up in this transaction: the record refers to
        // them and commits with it (a row a rolled-back batch stored is never referred to
        // after it, as this map lives for one call).
        var nameRows: [ExactID: Int64?] = [:]
        for user in userIDs {
            let userID = user.text
            let facts = try known[user] ?? UserFacts.readTables(tables, userID: userID)
            let record = UserFactsRecord.encode(facts) { name in
                // The last write's names first: resolved in this transaction, no statement.
                if let known = namesStoredThisWrite.first(where: { $0.name.hasSameBytes(as: name) }) {
                    return known.row
                }
                if let row = nameRows[ExactID(name)] { return row }
                let row = try? storedProductNameRow(name)
                nameRows[ExactID(name)] = row ?? nil
                return row ?? nil
            }
            upsert.bind(UserKey.of(userID), at: 1)
            upsert.bind(userID, at: 2)
            upsert.bind(blob: record, at: 3)
            try upsert.execute()
        }
    }
}
