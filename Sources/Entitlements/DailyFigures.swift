/// The dashboard's numbers for one UTC day in one environment (see docs/dashboard.md for the
/// exact meaning of each).
public struct DailyFigures: Sendable, Hashable {
    public var day: UTCDay
    /// Chains with an active period covering the last millisecond of the day.
    public var activeSubscriptions: Int64
    /// Free-trial transactions purchased that day.
    public var newTrials: Int64
    /// Paid transactions purchased that day whose predecessor in the chain was a free trial.
    public var trialConversions: Int64
    /// Paid transactions purchased that day whose predecessor in the chain was paid.
    public var renewals: Int64
    /// Transactions refunded or revoked that day (upgrades, which also end one, excluded).
    public var refunds: Int64
    /// Active periods that ended that day without a renewal continuing them.
    public var churn: Int64
    /// Prices of the transactions purchased that day, by currency, in milli-units.
    public var revenue: [String: Int64]

    public init(day: UTCDay, activeSubscriptions: Int64 = 0, newTrials: Int64 = 0, trialConversions: Int64 = 0,
                renewals: Int64 = 0, refunds: Int64 = 0, churn: Int64 = 0, revenue: [String: Int64] = [:]) {
        self.day = day
        self.activeSubscriptions = activeSubscriptions
        self.newTrials = newTrials
        self.trialConversions = trialConversions
        self.renewals = renewals
        self.refunds = refunds
        self.churn = churn
        self.revenue = revenue
    }
}
