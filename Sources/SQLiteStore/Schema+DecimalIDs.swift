import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// `transactions.transaction_id` and `web_order_line_item_id`
    /// keep Apple's ids that are canonical decimal numbers (``DecimalText``: 1-18 digits, no
    /// leading zero, as the read model's record does) as INTEGERs, 8 bytes at most instead of
    /// one per digit (a 16-digit id: 16 -> 8 bytes, in the row and again in the unique index);
    /// any other text ("007", "+1", 19 digits, letters) stays text. The two columns have no
    /// declared type, so SQLite keeps each value as bound (a TEXT column would turn the integer
    /// back into text, a NUMERIC one would turn "007" into 7). An integer reads back as its
    /// decimal text, which for a canonical id is the id byte for byte, so every reader is
    /// unchanged; but an integer never equals text, so every statement that looks a
    /// transaction up by id binds it as stored (``StorageEngine/bindDecimalID(_:at:of:)``),
    /// and the two can never hold the same id twice (the writer binds every id that way).
    /// PostgreSQL keeps its TEXT columns (its engine binds text).
    ///
    /// Rebuilt as in `product_names` (create, copy, drop, rename, keeping every row id: history
    /// events point at transactions by it), in row id order so the copy appends.
    package static let transactionsDecimalIDsMigration = Migration(
        "transactions_decimal_ids",
        sql: rebuild("transactions", into: changing(transactionsWithProductNames, [
            "transaction_id": "transaction_id NOT NULL UNIQUE",
            "web_order_line_item_id": "web_order_line_item_id",
        ]), copy: """
            SELECT id, \(decimalID("transaction_id")), chain_rowid, product_name_rowid, purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
                is_in_intro_offer_period, is_upgraded, group_name_rowid, \(decimalID("web_order_line_item_id")),
                in_app_ownership_type, app_account_token, environment, declared_product_type
            FROM transactions ORDER BY id
            """, indexes: [transactionsByChain]))

    /// `chains.original_transaction_id` keeps canonical decimal ids
    /// as INTEGERs, as ``transactionsDecimalIDsMigration`` did for transactions' ids (about 5
    /// bytes per transaction on the 1M x 3 set, row and unique index). The same rules follow:
    /// the column has no declared type; the writer binds every chain id it stores or looks up
    /// through ``StorageEngine/bindDecimalID(_:at:of:)``; a reader gets the id's text back
    /// from ``Statement/string(at:)``; and SQL that compares the column with text casts it
    /// (`CAST(c.original_transaction_id AS TEXT)` is the id's text, byte for byte). No reader
    /// orders by the column (integers would sort before text and by value).
    ///
    /// Rebuilt keeping every row id (transactions, renewal infos and pending events point at
    /// chains by it), in row id order so the copy appends.
    package static let chainsDecimalIDsMigration = Migration(
        "chains_decimal_ids",
        sql: rebuild("chains", into: current.shape(of: "chains"), copy: """
            (id, original_transaction_id, user_rowid, owned_since_ms)
                SELECT id, \(decimalID("original_transaction_id")), user_rowid, owned_since_ms FROM chains ORDER BY id
            """, indexes: current.indexes(on: "chains")))

    /// ``DecimalText/value(_:)`` in SQL (frozen with the migration): the column's text as an
    /// INTEGER when it is 1-18 ASCII digits without a leading zero (or "0"), else as it is
    /// (NULL stays NULL).
    package static func decimalID(_ column: String) -> String {
        """
        CASE WHEN \(column) GLOB '[0-9]*' AND \(column) NOT GLOB '*[^0-9]*' AND length(\(column)) <= 18
            AND \(column) NOT GLOB '0?*' THEN CAST(\(column) AS INTEGER) ELSE \(column) END
        """
    }
}
