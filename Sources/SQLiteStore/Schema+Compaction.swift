import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// For both event tables: kind, environment and source become the
    /// small integers of ``StorageCodes`` (a name no code matches becomes the code that
    /// reads back as it did: other, production, receipt). history_events also becomes a WITHOUT
    /// ROWID table clustered on (user_rowid, occurred_at_ms, event_id), the order ListHistory
    /// pages in, so the table is its own time index: history_by_user_time and the rowid (never
    /// read) go. Event ids stay unique through their own index (ON CONFLICT (event_id), and the
    /// confirmations find events by id); occurred_at_ms never changes once written, so no
    /// update moves a row. Tables are rebuilt as in migration 4 (create, copy, drop, rename).
    package static let compactHistoryMigration = Migration("history_events_compact_codes", sql: """
        \(rebuild("history_events", into: historyWithCodes,
                   copy: copyWithCodes(table: "history_events", parent: "user_rowid")))
        \(rebuild("pending_events", into: current.shape(of: "pending_events"),
                   copy: copyWithCodes(table: "pending_events", parent: "chain_rowid"),
                   indexes: current.indexes(on: "pending_events")))
        """)

    /// `history_events` as ``compactHistoryMigration`` makes it: every later shape is this one
    /// with a migration's changes.
    static let historyWithCodes = """
        CREATE TABLE history_events (
            event_id TEXT NOT NULL UNIQUE,
            user_rowid INTEGER NOT NULL REFERENCES users(id),
            kind INTEGER NOT NULL,
            occurred_at_ms INTEGER NOT NULL,
            product_id TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            expires_at_ms INTEGER NOT NULL,
            environment INTEGER NOT NULL,
            source INTEGER NOT NULL,
            apple_notification_type TEXT NOT NULL,
            PRIMARY KEY (user_rowid, occurred_at_ms, event_id)
        ) WITHOUT ROWID;
        """

    /// The copy step of both event tables' rebuild above: every column, with kind, environment
    /// and source turned into their codes. `parent` is the column that ties an event to its
    /// user (history) or chain (pending). The text is the one the migration landed with, so the
    /// migration stays what it was.
    private static func copyWithCodes(table: String, parent: String) -> String {
        """
        (
            event_id, \(parent), kind, occurred_at_ms, product_id, transaction_id,
            original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
            SELECT event_id, \(parent), \(kindCode), occurred_at_ms, product_id, transaction_id,
                original_transaction_id, expires_at_ms, \(environmentCode), \(sourceCode),
                apple_notification_type
            FROM \(table)
        """
    }

    /// A transaction's environment becomes its ``StorageCodes`` code
    /// (1 byte in SQLite instead of 10). Rebuilt as above, keeping every row id.
    package static let transactionsEnvironmentMigration = Migration(
        "transactions_environment_code",
        sql: rebuild("transactions", into: transactionsWithEnvironmentCode,
                     copy: copyTransactions(environment: environmentCode), indexes: [transactionsByChain]))

    /// The copy step of the rebuilds of `transactions` in its first two shapes (the same
    /// columns): every column as it is, in row id order, but `environment` and
    /// `in_app_ownership_type`, which take the SQL given.
    static func copyTransactions(environment: String = "environment",
                                 ownership: String = "in_app_ownership_type") -> String {
        """
        SELECT id, transaction_id, chain_rowid, product_id, purchase_date_ms,
            original_purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
            is_in_intro_offer_period, is_upgraded, subscription_group_identifier,
            web_order_line_item_id, \(ownership), app_account_token,
            \(environment), declared_product_type
        FROM transactions ORDER BY id
        """
    }

    /// `transactions` as ``transactionsEnvironmentMigration`` makes it.
    static let transactionsWithEnvironmentCode = changing(transactionsAsCreated, [
        "environment": "environment INTEGER NOT NULL",
    ])

    /// The one index of `transactions`, made again by every rebuild of the table.
    static let transactionsByChain = "CREATE INDEX transactions_by_chain ON transactions(chain_rowid);"

    /// The names of the text columns and the codes they become, as landed in the migration
    /// (frozen with it; PostgresSchema's migration of the same name uses the same text).
    package static let kindCode = """
        CASE kind WHEN 'purchase' THEN 1 WHEN 'renewal' THEN 2 WHEN 'expired' THEN 3
            WHEN 'refund' THEN 4 WHEN 'revoke' THEN 5 WHEN 'auto_renew_disabled' THEN 6
            WHEN 'auto_renew_enabled' THEN 7 WHEN 'billing_retry' THEN 8 WHEN 'grace_period' THEN 9
            WHEN 'billing_recovered' THEN 10 WHEN 'product_change' THEN 11
            WHEN 'ownership_transfer' THEN 12 ELSE 0 END
        """
    package static let environmentCode = "CASE environment WHEN 'sandbox' THEN 1 ELSE 0 END"
    package static let sourceCode = "CASE source WHEN 'notification_v1' THEN 1 WHEN 'notification_v2' THEN 2 ELSE 0 END"
}
