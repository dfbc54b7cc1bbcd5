import SQLite
import StorageCore
import StorageTables

/// The store's schema as append-only migrations: never edit or reorder a landed one, add a new one.
///
/// Internal integer keys (users.id, chains.id) keep the indexes on the read path small; the
/// Apple ids stay TEXT (they exceed 2^53 and are compared as strings everywhere).
package enum Schema {
    package static let migrator = Migrator([
        Migration("create_users_and_chains", sql: """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL UNIQUE,
                created_at_ms INTEGER NOT NULL
            );
            CREATE TABLE chains (
                id INTEGER PRIMARY KEY,
                original_transaction_id TEXT NOT NULL UNIQUE,
                user_rowid INTEGER NOT NULL REFERENCES users(id),
                owned_since_ms INTEGER NOT NULL
            );
            CREATE INDEX chains_by_user ON chains(user_rowid);
            """),
        Migration("create_transactions_and_renewal_infos", sql: """
            CREATE TABLE transactions (
                id INTEGER PRIMARY KEY,
                transaction_id TEXT NOT NULL UNIQUE,
                chain_rowid INTEGER NOT NULL REFERENCES chains(id),
                product_id TEXT NOT NULL,
                purchase_date_ms INTEGER NOT NULL,
                original_purchase_date_ms INTEGER NOT NULL,
                expires_date_ms INTEGER,
                cancellation_date_ms INTEGER,
                is_trial_period INTEGER NOT NULL,
                is_in_intro_offer_period INTEGER NOT NULL,
                is_upgraded INTEGER NOT NULL,
                subscription_group_identifier TEXT,
                web_order_line_item_id TEXT,
                in_app_ownership_type TEXT,
                app_account_token TEXT,
                environment TEXT NOT NULL,
                declared_product_type TEXT
            );
            CREATE INDEX transactions_by_chain ON transactions(chain_rowid);
            CREATE TABLE renewal_infos (
                chain_rowid INTEGER PRIMARY KEY REFERENCES chains(id),
                auto_renew_status INTEGER NOT NULL,
                auto_renew_product_id TEXT,
                is_in_billing_retry_period INTEGER NOT NULL,
                grace_period_expires_date_ms INTEGER,
                expiration_intent INTEGER,
                signed_date_ms INTEGER NOT NULL
            );
            """),
        Migration("create_history_and_processed_sources", sql: """
            CREATE TABLE history_events (
                id INTEGER PRIMARY KEY,
                event_id TEXT NOT NULL UNIQUE,
                user_rowid INTEGER NOT NULL REFERENCES users(id),
                kind TEXT NOT NULL,
                occurred_at_ms INTEGER NOT NULL,
                product_id TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                expires_at_ms INTEGER NOT NULL,
                environment TEXT NOT NULL,
                source TEXT NOT NULL,
                apple_notification_type TEXT NOT NULL
            );
            CREATE INDEX history_by_user_time
                ON history_events(user_rowid, occurred_at_ms, event_id);
            CREATE INDEX history_by_user_product_time
                ON history_events(user_rowid, product_id, occurred_at_ms, event_id);
            CREATE TABLE processed_sources (
                source TEXT NOT NULL,
                source_id TEXT NOT NULL,
                user_rowid INTEGER NOT NULL REFERENCES users(id),
                processed_at_ms INTEGER NOT NULL,
                PRIMARY KEY (source, source_id)
            ) WITHOUT ROWID;
            """),
        // Notifications arrive per chain, possibly before any user owns it: a chain and a
        // processed source may have no user, and events wait in pending_events until a receipt
        // binds the chain. SQLite cannot drop NOT NULL in place, so both tables are rebuilt
        // (create, copy, drop, rename: the order that keeps the children's foreign keys
        // naming "chains"); the migrator runs with foreign keys off and checks them before
        // committing. Reversals are keyed by transaction id: the transaction may not be stored yet.
        Migration("notifications_orphan_chains_and_refund_reversals", sql: """
            CREATE TABLE chains_rebuilt (
                id INTEGER PRIMARY KEY,
                original_transaction_id TEXT NOT NULL UNIQUE,
                user_rowid INTEGER REFERENCES users(id),
                owned_since_ms INTEGER
            );
            INSERT INTO chains_rebuilt (id, original_transaction_id, user_rowid, owned_since_ms)
                SELECT id, original_transaction_id, user_rowid, owned_since_ms FROM chains;
            DROP TABLE chains;
            ALTER TABLE chains_rebuilt RENAME TO chains;
            CREATE INDEX chains_by_user ON chains(user_rowid);

            CREATE TABLE processed_sources_rebuilt (
                source TEXT NOT NULL,
                source_id TEXT NOT NULL,
                user_rowid INTEGER REFERENCES users(id),
                processed_at_ms INTEGER NOT NULL,
                PRIMARY KEY (source, source_id)
            ) WITHOUT ROWID;
            INSERT INTO processed_sources_rebuilt (source, source_id, user_rowid, processed_at_ms)
                SELECT source, source_id, user_rowid, processed_at_ms FROM processed_sources;
            DROP TABLE processed_sources;
            ALTER TABLE processed_sources_rebuilt RENAME TO processed_sources;

            CREATE TABLE pending_events (
                event_id TEXT PRIMARY KEY,
                chain_rowid INTEGER NOT NULL REFERENCES chains(id),
                kind TEXT NOT NULL,
                occurred_at_ms INTEGER NOT NULL,
                product_id TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                expires_at_ms INTEGER NOT NULL,
                environment TEXT NOT NULL,
                source TEXT NOT NULL,
                apple_notification_type TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX pending_events_by_chain ON pending_events(chain_rowid);

            CREATE TABLE refund_reversals (
                transaction_id TEXT PRIMARY KEY,
                reversed_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        // Reconciliation with Apple's notification history resumes from here after a restart:
        // one watermark per environment, in Unix ms.
        Migration("create_reconciliation_watermarks", sql: """
            CREATE TABLE reconciliation_watermarks (
                environment TEXT PRIMARY KEY,
                reconciled_through_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        // The change log, written in the writer's transaction with the facts that cause
        // each change. AUTOINCREMENT: a sequence is never reused, even after pruning empties the
        // table (plain rowids restart at max+1, and a consumer's cursor would then skip changes).
        // entitlement_heads is what was last announced per user and chain plus the next instant
        // time alone changes it (indexed: the due timer reads only the earliest). The log id
        // (random, per database) prefixes change ids so a recreated database never repeats one.
        Migration("entitlement_change_log", sql: """
            CREATE TABLE entitlement_changes (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                user_rowid INTEGER NOT NULL REFERENCES users(id),
                occurred_at_ms INTEGER NOT NULL,
                previous_state TEXT,
                cause_event_id TEXT NOT NULL,
                product_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                state TEXT NOT NULL,
                purchased_at_ms INTEGER NOT NULL,
                expires_at_ms INTEGER NOT NULL,
                grace_period_expires_at_ms INTEGER NOT NULL,
                will_auto_renew INTEGER NOT NULL,
                is_trial_period INTEGER NOT NULL,
                is_in_intro_offer_period INTEGER NOT NULL,
                product_type TEXT NOT NULL,
                subscription_group_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                latest_transaction_id TEXT NOT NULL,
                entitlement_id TEXT NOT NULL
            );
            CREATE INDEX entitlement_changes_by_user ON entitlement_changes(user_rowid, sequence);
            CREATE TABLE entitlement_heads (
                user_rowid INTEGER NOT NULL REFERENCES users(id),
                next_due_ms INTEGER,
                product_id TEXT NOT NULL,
                original_transaction_id TEXT NOT NULL,
                state TEXT NOT NULL,
                purchased_at_ms INTEGER NOT NULL,
                expires_at_ms INTEGER NOT NULL,
                grace_period_expires_at_ms INTEGER NOT NULL,
                will_auto_renew INTEGER NOT NULL,
                is_trial_period INTEGER NOT NULL,
                is_in_intro_offer_period INTEGER NOT NULL,
                product_type TEXT NOT NULL,
                subscription_group_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                latest_transaction_id TEXT NOT NULL,
                entitlement_id TEXT NOT NULL,
                PRIMARY KEY (user_rowid, original_transaction_id)
            ) WITHOUT ROWID;
            CREATE INDEX entitlement_heads_by_due ON entitlement_heads(next_due_ms) WHERE next_due_ms IS NOT NULL;
            CREATE TABLE change_log_identity (log_id TEXT NOT NULL);
            INSERT INTO change_log_identity (log_id) VALUES (lower(hex(randomblob(8))));
            """),
        // Users who existed before the change log have no heads: without a baseline their
        // expiries would never be due and their next fact would announce every chain as new.
        // The writer gives users up to pending_through heads (announcing nothing) in chunks,
        // advancing done_through in the same transaction, so it resumes after a restart.
        Migration("entitlement_heads_baseline", sql: """
            CREATE TABLE entitlement_heads_baseline (
                done_through_user_rowid INTEGER NOT NULL,
                pending_through_user_rowid INTEGER NOT NULL
            );
            INSERT INTO entitlement_heads_baseline (done_through_user_rowid, pending_through_user_rowid)
                SELECT 0, COALESCE(MAX(id), 0) FROM users;
            """),
        // The read model: each user's facts as one compact record (UserFactsRecord),
        // keyed by the caller's user id, so a facts-cache miss is one B-tree lookup. Nothing to
        // copy: a user without a record is read from the tables, and gets one with their next
        // write.
        Migration("user_facts_read_model", sql: """
            CREATE TABLE user_facts (
                user_id TEXT PRIMARY KEY,
                facts BLOB NOT NULL
            ) WITHOUT ROWID;
            """),
        // Storage: this index cost 61 bytes per transaction (173 MiB of 1,353 on the
        // 1M x 3 bench set) to speed up only ListHistory's product filter. That query now walks
        // history_by_user_time over the one user's events and filters each row by product: a
        // user's history is tens to hundreds of events, so a page stays cheap.
        Migration("drop_history_by_user_product_time", sql: """
            DROP INDEX IF EXISTS history_by_user_product_time;
            """),
        // The App Store Server API's transaction-history revision per chain: a
        // refresh asks only for what changed since.
        Migration("server_api_history_revisions", sql: """
            CREATE TABLE history_revisions (
                original_transaction_id TEXT PRIMARY KEY,
                revision TEXT NOT NULL
            ) WITHOUT ROWID;
            """),
        webhookOutboxMigration,
        compactHistoryMigration,
        transactionsEnvironmentMigration,
        userFactsRowidMigration,
        transactionsOwnershipTextMigration,
        userFactsByUserRowMigration,
        historyPointersMigration,
        productNamesMigration,
        userFactsByUserKeyMigration,
        transactionsDecimalIDsMigration,
        compactEventIDsMigration,
        pointedExpiryMigration,
        chainsDecimalIDsMigration,
        // The app account token issued to each user (one each, never reissued): the token is
        // the key, so binding a purchase by the token Apple signed into it is one lookup.
        Migration("account_tokens", sql: """
            CREATE TABLE account_tokens (
                token TEXT PRIMARY KEY,
                user_rowid INTEGER NOT NULL UNIQUE REFERENCES users(id),
                issued_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            """),
        userFactsOldFormatsMigration,
        grantsMigration,
        dailyRollupMigration,
        consumptionMigration,
    ])
}
