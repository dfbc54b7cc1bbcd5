import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// `user_facts` becomes a rowid table with a unique index
    /// on user_id. As a WITHOUT ROWID table on 1 KiB pages its interior cells carried whole
    /// ~190-byte records (fan-out ~3.3, a 9-level tree, 3.5 page reads per facts-cache miss on
    /// the 1M-user set); now the index holds only (user_id, rowid) and the table's interior
    /// cells only rowids, so both trees are shallow and their upper levels stay in the reader's
    /// page cache. The rowid is implicit (no column): the columns, every statement on the
    /// table (ON CONFLICT (user_id) uses the unique index) and migrate-store's column-by-name
    /// copy stay as they were. Rows go in user_id order (the old table's scan order), and the
    /// index is built once after the copy rather than row by row.
    package static let userFactsRowidMigration = Migration("user_facts_rowid_table", sql: rebuild(
        "user_facts",
        into: "CREATE TABLE user_facts (user_id TEXT NOT NULL, facts BLOB NOT NULL);",
        copy: "(user_id, facts) SELECT user_id, facts FROM user_facts ORDER BY user_id",
        indexes: ["CREATE UNIQUE INDEX user_facts_by_user ON user_facts(user_id);"]))

    /// `user_facts` is keyed by the user's row (`users.id`) instead
    /// of repeating the user id: the record's rowid is the user's row id, so the unique index
    /// on user_id (6 bytes per transaction on the 1M x 3 set) and the id in every record row go,
    /// and the writer's upsert maintains one B-tree instead of two. A miss still
    /// descends two B-trees, `users`' unique index on user_id (covering: it holds the row id)
    /// and the record table by rowid, as it descended user_facts_by_user and the table before.
    /// Rows go in user row order; a record whose user has no row (never written so) is dropped:
    /// nothing could read it. migrate-store copies by column name, users before user_facts.
    package static let userFactsByUserRowMigration = Migration("user_facts_by_user_row", sql: rebuild(
        "user_facts",
        into: "CREATE TABLE user_facts (user_rowid INTEGER PRIMARY KEY REFERENCES users(id), facts BLOB NOT NULL);",
        copy: """
            (user_rowid, facts)
                SELECT u.id, f.facts FROM user_facts f JOIN users u ON u.user_id = f.user_id ORDER BY u.id
            """))

    /// `user_facts` is keyed by ``UserKey`` (a 64-bit hash of the user
    /// id) and holds the id for an exact check, so a miss descends one B-tree (the records, by
    /// key) instead of two (`users`' index on user_id, then the records by user row): a
    /// profile put the index descent at 23 % of a miss. The id costs its bytes once more per user
    /// (the row key's varint grows from ~3 to 9 bytes too). Records are copied as they are, in
    /// key order; of two users with one key (see ``UserKey``) the one with the lower user row
    /// keeps the row and the other, with no record, is read from the tables.
    /// Needs ``UserKey/sqlFunction`` defined on the connection (``Schema/migrate(_:nowMs:)``).
    package static let userFactsByUserKeyMigration = Migration("user_facts_by_user_key", sql: """
        \(SchemaFile.renamed(current.shape(of: "user_facts"), table: "user_facts", to: "user_facts_rebuilt"))
        INSERT OR IGNORE INTO user_facts_rebuilt (user_key, user_id, facts)
            SELECT \(UserKey.sqlFunction)(u.user_id), u.user_id, f.facts
            FROM user_facts f JOIN users u ON u.id = f.user_rowid ORDER BY 1, u.id;
        DROP TABLE user_facts;
        ALTER TABLE user_facts_rebuilt RENAME TO user_facts;
        """)

    /// Records of formats 1 and 2 go, so a reader decodes only the current format
    /// (``UserFactsRecord``) and this binary needs no decoder for the old ones. A record is a
    /// copy of its user's rows in the tables, which stay the source of truth: until the store
    /// builds the record again (``userFactsRewriteMigration`` lists the users without one) the
    /// user is read from the tables, with the same answers.
    package static let userFactsOldFormatsMigration = Migration("user_facts_drop_formats_1_and_2", sql: """
        DELETE FROM user_facts WHERE substr(facts, 1, 1) IN (x'01', x'02');
        """)

    /// Brings `db` to this binary's schema: ``migrator`` with the SQL functions its migrations
    /// call defined on the connection first.
    @discardableResult
    package static func migrate(_ db: Connection, nowMs: Int64) throws -> Int {
        try UserKey.define(on: db)
        try CompactEventID.define(on: db)
        return try migrator.migrate(db, nowMs: nowMs)
    }
}
