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
        \(current.table("product_names"))
        INSERT INTO product_names (name)
            SELECT product_id FROM transactions
            UNION SELECT subscription_group_identifier FROM transactions WHERE subscription_group_identifier IS NOT NULL
            UNION SELECT auto_renew_product_id FROM renewal_infos WHERE auto_renew_product_id IS NOT NULL;
        \(rebuild("transactions", into: transactionsWithProductNames, copy: """
            SELECT id, transaction_id, chain_rowid,
                (SELECT p.id FROM product_names p WHERE p.name = product_id), purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                is_in_intro_offer_period, is_upgraded,
                (SELECT p.id FROM product_names p WHERE p.name = subscription_group_identifier),
                web_order_line_item_id, in_app_ownership_type, app_account_token, environment,
                declared_product_type
            FROM transactions ORDER BY id
            """, indexes: [transactionsByChain]))
        \(rebuild("renewal_infos", into: current.shape(of: "renewal_infos"), copy: """
            SELECT chain_rowid, auto_renew_status,
                (SELECT p.id FROM product_names p WHERE p.name = auto_renew_product_id),
                is_in_billing_retry_period, grace_period_expires_date_ms, expiration_intent, signed_date_ms
            FROM renewal_infos ORDER BY chain_rowid
            """))
        """)

    /// `transactions` as ``productNamesMigration`` makes it.
    static let transactionsWithProductNames = changing(transactionsWithEnvironmentCode, [
        "product_id": "product_name_rowid INTEGER NOT NULL REFERENCES product_names(id)",
        "subscription_group_identifier": "group_name_rowid INTEGER REFERENCES product_names(id)",
    ])
}
