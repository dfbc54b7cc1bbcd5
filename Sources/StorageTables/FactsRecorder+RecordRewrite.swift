import SQLDatabase

/// Builds the `user_facts` records of the users listed in `user_facts_rewrite` (by the migration
/// that followed the deletion of records in formats 1 and 2), so they are read in one lookup
/// again instead of from the tables.
extension FactsRecorder {
    /// Builds every listed user's record, ``WriterLimits/recordRewriteBatch`` users per write
    /// transaction, and returns how many transactions it took.
    ///
    /// Run when the store opens, before the writer starts. When no user is listed it costs one
    /// read, without the write lock, so a store without such users opens as fast as before.
    /// Each transaction takes the write lock, so replicas opening together take turns at the
    /// batches, and a crash keeps the batches committed before it.
    package func rewriteListedRecords() throws -> Int {
        let anyListed = try db.prepare("SELECT 1 FROM user_facts_rewrite LIMIT 1")
        var more = try anyListed.step()
        anyListed.reset()
        var transactions = 0
        while more {
            more = try db.transaction(beginning: DB.beginWrite) {
                try rewriteRecords(limit: WriterLimits.recordRewriteBatch)
            }
            transactions += 1
            rememberCommittedNames()
        }
        return transactions
    }

    /// Builds the records of up to `limit` listed users, in user row order, with the writer's
    /// own code (``refreshRecords(for:known:)``), and deletes them from the list; returns
    /// whether users remain. Runs inside the writer's open transaction, so a batch's records
    /// and their removal from the list commit together and an interrupted rewrite resumes
    /// where it stopped. A listed row whose user is gone is only removed.
    package func rewriteRecords(limit: Int) throws -> Bool {
        let batch = try db.prepare("""
            SELECT w.user_rowid, u.user_id FROM user_facts_rewrite w LEFT JOIN users u ON u.id = w.user_rowid
            ORDER BY w.user_rowid LIMIT ?
            """)
        batch.bind(limit, at: 1)
        var users: [ExactID] = []
        var through: Int64?
        var listed = 0
        while try batch.step() {
            listed += 1
            through = batch.int64(at: 0)
            if let userID = batch.optionalString(at: 1) { users.append(ExactID(userID)) }
        }
        batch.reset()
        guard let through else { return false }
        try refreshRecords(for: users)
        let done = try db.prepare("DELETE FROM user_facts_rewrite WHERE user_rowid <= ?")
        done.bind(through, at: 1)
        try done.execute()
        try db.flushDeferred()
        return listed == limit
    }
}

extension WriterLimits {
    /// Records built per transaction when the store opens: few enough that a rewrite of many
    /// users commits as it goes and a crash loses one batch's work, enough that the commits
    /// (an fsync each on SQLite) are a small part of it.
    package static let recordRewriteBatch = 1_000
}
