import SQLite
import StorageCore
import StorageTables

extension Schema {
    /// The dashboard's read model: the daily rollup (``DailyRollup``), kept by the writer in
    /// the transaction of the facts it derives from, and the prices it sums as revenue.
    ///
    /// One row per environment (``StorageCodes`` code), UTC day (days since 1970-01-01), counter
    /// and currency (empty but for revenue), so a 90-day dashboard reads a few hundred rows
    /// whatever the number of users. The prices go beside their transactions, NULL where
    /// Apple's data had none (verifyReceipt, and every transaction stored before this). A file
    /// with chains gets a row in `daily_rollup_backfill`: the store then fills the rollup
    /// from every stored chain when it opens (``FactsRecorder/backfillRollupIfPending()``),
    /// with the same rules the writer uses, and deletes the row.
    package static let dailyRollupMigration = Migration("daily_rollup", sql: """
        \(current.table("daily_rollup"))
        ALTER TABLE transactions ADD COLUMN price_milli INTEGER;
        ALTER TABLE transactions ADD COLUMN currency TEXT;
        \(current.table("daily_rollup_backfill"))
        INSERT INTO daily_rollup_backfill (chains_through) SELECT MAX(id) FROM chains HAVING COUNT(*) > 0;
        """)
}
