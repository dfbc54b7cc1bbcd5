import EntitlementPorts
import Entitlements

extension InMemoryEntitlementStore: DailyFiguresReading {
    public func dailyFigures(days: ClosedRange<UTCDay>, environment: Environment) throws -> [DailyFigures] {
        state.withLock { facts in
            var activeBefore: Int64 = 0
            var cells: [RollupKey: Int64] = [:]
            for (key, amount) in facts.rollup where key.environment == environment {
                if days.contains(key.day) {
                    cells[key] = amount
                } else if key.day < days.lowerBound {
                    if key.counter == .subscriptionStarts { activeBefore += amount }
                    if key.counter == .churn { activeBefore -= amount }
                }
            }
            return DailyRollup.figures(days: days, environment: environment, cells: cells, activeBefore: activeBefore)
        }
    }
}
