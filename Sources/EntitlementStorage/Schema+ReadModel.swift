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

    /// Storage (issue 14 goal 2): `user_facts` is keyed by the user's row (`users.id`) instead
    /// of repeating the user id: the record's rowid is the user's row id, so the unique index
    /// on user_id (6 bytes per transaction on the 1M x 3 set) and the id in every record row go,
    /// and the writer's upsert maintains one B-tree instead of two. A miss still
    /// descends two B-trees, `users`' unique index on user_id (covering: it holds the row id)
    /// and the record table by rowid, as it descended user_facts_by_user and the table before.
    /// Rows go in user row order; a record whose user has no row (never written so) is dropped:
    /// nothing could read it. migrate-store copies by column name, users before user_facts.
    static let userFactsByUserRowMigration = Migration("user_facts_by_user_row", sql: """
        CREATE TABLE user_facts_rebuilt (
            user_rowid INTEGER PRIMARY KEY REFERENCES users(id),
            facts BLOB NOT NULL
        );
        INSERT INTO user_facts_rebuilt (user_rowid, facts)
            SELECT u.id, f.facts FROM user_facts f JOIN users u ON u.user_id = f.user_id ORDER BY u.id;
        DROP TABLE user_facts;
        ALTER TABLE user_facts_rebuilt RENAME TO user_facts;
        """)
}
