import EntitlementPorts
import Entitlements

extension SQLStore: DailyFiguresReading {
    /// Reads the rollup on a read connection: never waits for the writer.
    public nonisolated func dailyFigures(days: ClosedRange<UTCDay>, environment: Environment) throws
        -> [DailyFigures] {
        let (cells, activeBefore) = try read("reading the daily rollup") {
            try $0.dailyRollup(days: days, environment: environment)
        }
        return DailyRollup.figures(days: days, environment: environment, cells: cells, activeBefore: activeBefore)
    }
}
