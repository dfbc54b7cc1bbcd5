/// What the daily rollup stores per day: a counter, and the amount it adds up to.
///
/// Active subscriptions are not stored per day but as the periods that start and end each day
/// (``subscriptionStarts`` and ``churn``): a renewal then touches no day but its own, and the
/// active count of any day is the running sum of starts minus ends up to it.
public enum RollupCounter: String, Sendable, Hashable, CaseIterable {
    case subscriptionStarts = "starts"
    case churn
    case newTrials = "new_trials"
    case trialConversions = "trial_conversions"
    case renewals
    case refunds
    /// In milli-units of ``RollupKey/currency``.
    case revenue
}

/// One cell of the daily rollup: an environment's counter on a day (and a currency, for revenue).
public struct RollupKey: Sendable, Hashable {
    public var environment: Environment
    public var day: UTCDay
    public var counter: RollupCounter
    /// The currency of revenue; empty for every other counter.
    public var currency: String

    public init(environment: Environment, day: UTCDay, counter: RollupCounter, currency: String = "") {
        self.environment = environment
        self.day = day
        self.counter = counter
        self.currency = currency
    }
}
