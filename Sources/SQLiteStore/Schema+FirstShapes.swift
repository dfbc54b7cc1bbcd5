import SQLite

extension Schema {
    /// `chains` as `create_users_and_chains` made it, every chain with an owner: the shape
    /// `notifications_orphan_chains_and_refund_reversals` rebuilds it from.
    static let chainsAsCreated = """
        CREATE TABLE chains (
            id INTEGER PRIMARY KEY,
            original_transaction_id TEXT NOT NULL UNIQUE,
            user_rowid INTEGER NOT NULL REFERENCES users(id),
            owned_since_ms INTEGER NOT NULL
        );
        """

    /// `transactions` as `create_transactions_and_renewal_infos` made it: every later shape
    /// (``transactionsWithEnvironmentCode`` and after) is this one with a migration's changes.
    static let transactionsAsCreated = """
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
        """

    /// The columns both event tables were created with (`history_events`, then
    /// `pending_events`), kind, environment and source as text until
    /// `history_events_compact_codes`.
    static let eventColumnsAsCreated = """
        kind TEXT NOT NULL,
            occurred_at_ms INTEGER NOT NULL,
            product_id TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            environment TEXT NOT NULL,
            source TEXT NOT NULL,
            apple_notification_type TEXT NOT NULL
        """
}
