import Entitlements

/// The dashboard's read port: the daily rollup's figures for a range of days.
///
/// Answered from the rollup the store keeps on write (``DailyRollup``), never by scanning
/// facts, so the cost does not grow with the number of users (docs/dashboard.md).
public protocol DailyFiguresReading: Sendable {
    /// One ``DailyFigures`` per day of `days`, oldest first, for `environment`'s transactions;
    /// a day without activity has zeros (and the active count carried from the day before).
    func dailyFigures(days: ClosedRange<UTCDay>, environment: Environment) throws -> [DailyFigures]
}
