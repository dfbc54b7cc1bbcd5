import SQLite
import StorageCore

extension Schema {
    /// A transaction's product id and subscription group id, and a
    /// renewal info's auto-renew product id, are stored once each in `product_names` and
    /// referenced by its row id. An app sells a handful of products, so every transaction row
    /// repeated the same few texts (`pro.monthly` and `grp.pro`, 18 bytes of each ~85-byte row
    /// on the 1M x 3 set, replaced by two 1-byte references). Names compare and dedupe byte for
    /// byte (BINARY), so every text reads back exactly as it was written; NULL stays NULL (no
    /// name row is NULL, and a NULL reference reads back NULL). Names are never deleted or
    /// changed, so a reference always reads the text it was written with.
    ///
    /// Both tables are rebuilt as in `transactions_ownership_type_text` (create, copy, drop,
    /// rename, keeping every row id: history events point at transactions by it), in row id
    /// order so the copies append.
    package static let productNamesMigration = Migration("product_names", sql: """
        CREATE TABLE product_names (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE
        );
        INSERT INTO product_names (name)
            SELECT product_id FROM transactions
            UNION SELECT subscription_group_identifier FROM transactions WHERE subscription_group_identifier IS NOT NULL
            UNION SELECT auto_renew_product_id FROM renewal_infos WHERE auto_renew_product_id IS NOT NULL;

        CREATE TABLE transactions_rebuilt (
            id INTEGER PRIMARY KEY,
            transaction_id TEXT NOT NULL UNIQUE,
            chain_rowid INTEGER NOT NULL REFERENCES chains(id),
            product_name_rowid INTEGER NOT NULL REFERENCES product_names(id),
            purchase_date_ms INTEGER NOT NULL,
            original_purchase_date_ms INTEGER NOT NULL,
            expires_date_ms INTEGER,
            cancellation_date_ms INTEGER,
            is_trial_period INTEGER NOT NULL,
            is_in_intro_offer_period INTEGER NOT NULL,
            is_upgraded INTEGER NOT NULL,
            group_name_rowid INTEGER REFERENCES product_names(id),
            web_order_line_item_id TEXT,
            in_app_ownership_type TEXT,
            app_account_token TEXT,
            environment INTEGER NOT NULL,
            declared_product_type TEXT
        );
        INSERT INTO transactions_rebuilt
            SELECT id, transaction_id, chain_rowid,
                (SELECT p.id FROM product_names p WHERE p.name = product_id), purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                is_in_intro_offer_period, is_upgraded,
                (SELECT p.id FROM product_names p WHERE p.name = subscription_group_identifier),
                web_order_line_item_id, in_app_ownership_type, app_account_token, environment,
                declared_product_type
            FROM transactions ORDER BY id;
        DROP TABLE transactions;
        ALTER TABLE transactions_rebuilt RENAME TO transactions;
        CREATE INDEX transactions_by_chain ON transactions(chain_rowid);

        CREATE TABLE renewal_infos_rebuilt (
            chain_rowid INTEGER PRIMARY KEY REFERENCES chains(id),
            auto_renew_status INTEGER NOT NULL,
            auto_renew_product_name_rowid INTEGER REFERENCES product_names(id),
            is_in_billing_retry_period INTEGER NOT NULL,
            grace_period_expires_date_ms INTEGER,
            expiration_intent INTEGER,
            signed_date_ms INTEGER NOT NULL
        );
        INSERT INTO renewal_infos_rebuilt
            SELECT chain_rowid, auto_renew_status,
                (SELECT p.id FROM product_names p WHERE p.name = auto_renew_product_id),
                is_in_billing_retry_period, grace_period_expires_date_ms, expiration_intent, signed_date_ms
            FROM renewal_infos ORDER BY chain_rowid;
        DROP TABLE renewal_infos;
        ALTER TABLE renewal_infos_rebuilt RENAME TO renewal_infos;
        """)
}
