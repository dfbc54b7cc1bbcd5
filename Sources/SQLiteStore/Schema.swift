import SQLite
import StorageCore
import StorageTables

/// The store's schema as append-only migrations: never edit or reorder a landed one, add a new one.
///
/// A table's current shape is stated once, in schema.sql (``current``); a migration that makes
/// a table in an earlier shape states it as the shape before plus its change (``changing(_:_:)``).
///
/// Internal integer keys (users.id, chains.id) keep the indexes on the read path small; the
/// Apple ids stay TEXT (they exceed 2^53 and are compared as strings everywhere).
package enum Schema {
    package static let migrator = Migrator([
        Migration("create_users_and_chains", sql: """
            \(current.table("users"))
            \(chainsAsCreated)
            CREATE INDEX chains_by_user ON chains(user_rowid);
            """),
        Migration("create_transactions_and_renewal_infos", sql: """
            \(transactionsAsCreated)
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
                \(eventColumnsAsCreated)
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
        // (``rebuild(_:into:copy:indexes:)``). Reversals are keyed by transaction id: the
        // transaction may not be stored yet.
        Migration("notifications_orphan_chains_and_refund_reversals", sql: """
            \(rebuild("chains", into: changing(chainsAsCreated, [
                "user_rowid": "user_rowid INTEGER REFERENCES users(id)",
                "owned_since_ms": "owned_since_ms INTEGER",
            ]), copy: """
                (id, original_transaction_id, user_rowid, owned_since_ms)
                    SELECT id, original_transaction_id, user_rowid, owned_since_ms FROM chains
                """, indexes: ["CREATE INDEX chains_by_user ON chains(user_rowid);"]))
            \(rebuild("processed_sources", into: current.shape(of: "processed_sources"), copy: """
                (source, source_id, user_rowid, processed_at_ms)
                    SELECT source, source_id, user_rowid, processed_at_ms FROM processed_sources
                """))
            CREATE TABLE pending_events (
                event_id TEXT PRIMARY KEY,
                chain_rowid INTEGER NOT NULL REFERENCES chains(id),
                \(eventColumnsAsCreated)
            ) WITHOUT ROWID;
            CREATE INDEX pending_events_by_chain ON pending_events(chain_rowid);
            \(current.table("refund_reversals"))
            """),
        // Reconciliation with Apple's notification history resumes from here after a restart:
        // one watermark per environment, in Unix ms.
        Migration("create_reconciliation_watermarks", sql: current.table("reconciliation_watermarks")),
        // The change log, written in the writer's transaction with the facts that cause
        // each change. AUTOINCREMENT: a sequence is never reused, even after pruning empties the
        // table (plain rowids restart at max+1, and a consumer's cursor would then skip changes).
        // entitlement_heads is what was last announced per user and chain plus the next instant
        // time alone changes it (indexed: the due timer reads only the earliest). The log id
        // (random, per database) prefixes change ids so a recreated database never repeats one.
        Migration("entitlement_change_log", sql: """
            \(current.table("entitlement_changes"))
            \(current.table("entitlement_heads"))
            \(current.table("change_log_identity"))
            \(current.rows(of: "change_log_identity"))
            """),
        // Users who existed before the change log have no heads: without a baseline their
        // expiries would never be due and their next fact would announce every chain as new.
        // The writer gives users up to pending_through heads (announcing nothing) in chunks,
        // advancing done_through in the same transaction, so it resumes after a restart.
        Migration("entitlement_heads_baseline", sql: """
            \(current.table("entitlement_heads_baseline"))
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
        Migration("server_api_history_revisions", sql: current.table("history_revisions")),
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
        Migration("account_tokens", sql: current.table("account_tokens")),
        userFactsOldFormatsMigration,
        grantsMigration,
        dailyRollupMigration,
        consumptionMigration,
        userFactsRewriteMigration,
    ])
}
