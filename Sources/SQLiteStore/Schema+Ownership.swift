import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// `in_app_ownership_type` becomes ``OwnershipTypeText``'s text
    /// (PURCHASED 9 bytes -> 0 on nearly every row: -9 bytes per transaction row, ~-10 B/tx
    /// with page overhead on the 1M x 3 set). The table is rebuilt as in
    /// `transactions_environment_code` (create, copy, drop, rename, keeping every row id) rather
    /// than updated in place: an in-place update would leave the saved bytes as holes inside
    /// pages that appends never reuse. Columns, types and the shared SQL stay as they were.
    package static let transactionsOwnershipTextMigration = Migration(
        "transactions_ownership_type_text",
        sql: rebuild("transactions", into: transactionsWithEnvironmentCode,
                     copy: copyTransactions(ownership: ownershipTypeText), indexes: [transactionsByChain]))

    /// ``OwnershipTypeText/stored(_:)`` in SQL, as landed in the migration (frozen with it;
    /// PostgresSchema's migration of the same name uses the same text). NULL stays NULL
    /// (`'=' || NULL` is NULL on both engines).
    package static let ownershipTypeText = """
        CASE in_app_ownership_type WHEN 'PURCHASED' THEN '' WHEN 'FAMILY_SHARED' THEN 'F'
            ELSE '=' || in_app_ownership_type END
        """
}
