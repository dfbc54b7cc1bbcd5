import SQLite

/// A database as entitlementd left it at schema version 3, before notifications: the frozen
/// tables of migrations 1-3 with one user, one chain, its renewal info, history and a source.
///
/// A copy on purpose: the migration under test must upgrade what old binaries wrote, not what
/// today's migration list would produce.
enum Version3Database {
    static func create(at path: String) throws {
        let db = try Connection(path: path)
        defer { db.close() }
        try db.execute("""
            PRAGMA journal_mode = WAL;
            PRAGMA foreign_keys = ON;
            CREATE TABLE schema_migrations (
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL);
            INSERT INTO schema_migrations VALUES (1, 'create_users_and_chains', 1),
                (2, 'create_transactions_and_renewal_infos', 1),
                (3, 'create_history_and_processed_sources', 1);
            CREATE TABLE users (
                id INTEGER PRIMARY KEY, user_id TEXT NOT NULL UNIQUE, created_at_ms INTEGER NOT NULL);
            CREATE TABLE chains (
                id INTEGER PRIMARY KEY, original_transaction_id TEXT NOT NULL UNIQUE,
                user_rowid INTEGER NOT NULL REFERENCES users(id), owned_since_ms INTEGER NOT NULL);
            CREATE INDEX chains_by_user ON chains(user_rowid);
            CREATE TABLE transactions (
                id INTEGER PRIMARY KEY, transaction_id TEXT NOT NULL UNIQUE,
                chain_rowid INTEGER NOT NULL REFERENCES chains(id), product_id TEXT NOT NULL,
                purchase_date_ms INTEGER NOT NULL, original_purchase_date_ms INTEGER NOT NULL,
                expires_date_ms INTEGER, cancellation_date_ms INTEGER,
                is_trial_period INTEGER NOT NULL, is_in_intro_offer_period INTEGER NOT NULL,
                is_upgraded INTEGER NOT NULL, subscription_group_identifier TEXT,
                web_order_line_item_id TEXT, in_app_ownership_type TEXT, app_account_token TEXT,
                environment TEXT NOT NULL, declared_product_type TEXT);
            CREATE INDEX transactions_by_chain ON transactions(chain_rowid);
            CREATE TABLE renewal_infos (
                chain_rowid INTEGER PRIMARY KEY REFERENCES chains(id),
                auto_renew_status INTEGER NOT NULL, auto_renew_product_id TEXT,
                is_in_billing_retry_period INTEGER NOT NULL, grace_period_expires_date_ms INTEGER,
                expiration_intent INTEGER, signed_date_ms INTEGER NOT NULL);
            CREATE TABLE history_events (
                id INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE,
                user_rowid INTEGER NOT NULL REFERENCES users(id), kind TEXT NOT NULL,
                occurred_at_ms INTEGER NOT NULL, product_id TEXT NOT NULL,
                transaction_id TEXT NOT NULL, original_transaction_id TEXT NOT NULL,
                expires_at_ms INTEGER NOT NULL, environment TEXT NOT NULL, source TEXT NOT NULL,
                apple_notification_type TEXT NOT NULL);
            CREATE INDEX history_by_user_time ON history_events(user_rowid, occurred_at_ms, event_id);
            CREATE INDEX history_by_user_product_time
                ON history_events(user_rowid, product_id, occurred_at_ms, event_id);
            CREATE TABLE processed_sources (
                source TEXT NOT NULL, source_id TEXT NOT NULL,
                user_rowid INTEGER NOT NULL REFERENCES users(id), processed_at_ms INTEGER NOT NULL,
                PRIMARY KEY (source, source_id)) WITHOUT ROWID;

            INSERT INTO users VALUES (1, 'alice', 1);
            INSERT INTO chains VALUES (1, '1000', 1, 1);
            INSERT INTO transactions VALUES (1, '1000', 1, 'com.example.monthly', 1700000000000,
                1700000000000, 1702592000000, NULL, 0, 0, 0, 'group', NULL, 'PURCHASED', NULL,
                'sandbox', 'auto_renewable');
            INSERT INTO renewal_infos VALUES (1, 1, NULL, 0, NULL, NULL, 5);
            INSERT INTO history_events VALUES (1, 'purchase:1000', 1, 'purchase', 1700000000000,
                'com.example.monthly', '1000', '1000', 1702592000000, 'sandbox', 'receipt', '');
            INSERT INTO processed_sources VALUES ('receipt', 'r1', 1, 1);
            PRAGMA user_version = 3;
            """)
    }
}
