import SQLite

extension Schema {
    /// Reads at scale (issue 14 goal 1): `user_facts` becomes a rowid table with a unique index
    /// on user_id. As a WITHOUT ROWID table on 1 KiB pages its interior cells carried whole
    /// ~190-byte records (fan-out ~3.3, a 9-level tree, 3.5 page reads per facts-cache miss on
    /// the 1M-user set); now the index holds only (user_id, rowid) and the table's interior
    /// cells only rowids, so both trees are shallow and their upper levels stay in the reader's
    /// page cache. The rowid is implicit (no column): the columns, every statement on the
    /// table (ON CONFLICT (user_id) uses the unique index) and migrate-store's column-by-name
    /// copy stay as they were. Rows go in user_id order (the old table's scan order), and the
    /// index is built once after the copy rather than row by row.
    static let userFactsRowidMigration = Migration("user_facts_rowid_table", sql: """
        CREATE TABLE user_facts_rebuilt (
            user_id TEXT NOT NULL,
            facts BLOB NOT NULL
        );
        INSERT INTO user_facts_rebuilt (user_id, facts) SELECT user_id, facts FROM user_facts ORDER BY user_id;
        DROP TABLE user_facts;
        ALTER TABLE user_facts_rebuilt RENAME TO user_facts;
        CREATE UNIQUE INDEX user_facts_by_user ON user_facts(user_id);
        """)
}
