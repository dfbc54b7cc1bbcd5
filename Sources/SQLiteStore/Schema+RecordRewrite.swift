import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// Lists the users who have no `user_facts` record, so that the store, when it opens, builds
    /// theirs from the tables with the writer's own code (``FactsRecorder/rewriteRecords(limit:)``)
    /// and they are read in one lookup again.
    ///
    /// It follows `user_facts_drop_formats_1_and_2` (which deleted records this binary cannot
    /// decode) instead of changing it: that migration had landed, and a file it already ran on
    /// has lost which users it deleted. Every user without a record is listed: those users, and
    /// any not written since before the read model, whose record the writer builds alike. A
    /// user whose key holds another user's record is left out (the writer's upsert would leave
    /// that row alone). Needs ``UserKey/sqlFunction`` defined on the connection
    /// (``Schema/migrate(_:nowMs:)``).
    package static let userFactsRewriteMigration = Migration("user_facts_rewrite_missing_records", sql: """
        \(current.table("user_facts_rewrite"))
        INSERT INTO user_facts_rewrite (user_rowid)
            SELECT u.id FROM users u
            WHERE NOT EXISTS (SELECT 1 FROM user_facts f WHERE f.user_key = \(UserKey.sqlFunction)(u.user_id));
        """)
}
