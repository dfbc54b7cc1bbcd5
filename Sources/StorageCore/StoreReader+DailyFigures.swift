import EntitlementPorts
import Entitlements
import SQLDatabase
import StorageTables

/// The dashboard's read of the daily rollup (``DailyFiguresReading``).
extension StoreReader {
    /// The rollup's cells of `environment` on `days`, and the chains active at the end of the
    /// day before them (every earlier day's starts minus churn), in one snapshot.
    package func dailyRollup(days: ClosedRange<UTCDay>, environment: Environment) throws
        -> (cells: [RollupKey: Int64], activeBefore: Int64) {
        try db.transaction(beginning: DB.beginSnapshotRead) {
            let code = StorageCodes.code(environment)
            let before = try db.prepare("""
                SELECT COALESCE(SUM(CASE WHEN counter = 'starts' THEN amount ELSE -amount END), 0)
                FROM daily_rollup WHERE environment = ? AND day < ? AND counter IN ('starts', 'churn')
                """)
            before.bind(code, at: 1)
            before.bind(days.lowerBound.daysSince1970, at: 2)
            let activeBefore = try before.step() ? before.int64(at: 0) : 0
            before.reset()
            let range = try db.prepare("""
                SELECT day, counter, currency, amount FROM daily_rollup
                WHERE environment = ? AND day >= ? AND day <= ?
                """)
            defer { range.reset() }
            range.bind(code, at: 1)
            range.bind(days.lowerBound.daysSince1970, at: 2)
            range.bind(days.upperBound.daysSince1970, at: 3)
            var cells: [RollupKey: Int64] = [:]
            while try range.step() {
                // A counter a newer binary added is not this one's to show.
                guard let counter = RollupCounter(rawValue: range.string(at: 1)) else { continue }
                let key = RollupKey(environment: environment, day: UTCDay(daysSince1970: range.int64(at: 0)),
                                    counter: counter, currency: range.string(at: 2))
                cells[key, default: 0] += range.int64(at: 3)
            }
            return (cells, activeBefore)
        }
    }
}
