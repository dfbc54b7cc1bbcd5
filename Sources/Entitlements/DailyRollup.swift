/// The rules of the dashboard's daily rollup (docs/dashboard.md), as pure functions.
///
/// Each chain contributes amounts to rollup cells, computed from its transactions alone
/// (``contributions(of:)``). The stores keep the sum over all chains: when a write changes a
/// chain they add the difference between its contributions after and before. A duplicate
/// changes nothing, so it adds nothing; a late or out-of-order fact recomputes the chain as a
/// whole, so the sum is always what the facts stored now give, whatever order they came in.
public enum DailyRollup {
    /// The cells `chain` (one chain's transactions, any order) adds to, with nonzero amounts.
    public static func contributions(of chain: [RollupTransaction]) -> [RollupKey: Int64] {
        var cells: [RollupKey: Int64] = [:]
        func add(_ environment: Environment, _ ms: Int64, _ counter: RollupCounter, currency: String = "",
                 _ amount: Int64 = 1) {
            guard amount != 0 else { return }
            cells[RollupKey(environment: environment, day: UTCDay(containing: ms), counter: counter,
                            currency: currency), default: 0] += amount
        }
        for transaction in chain {
            if let price = transaction.price {
                add(transaction.environment, transaction.purchaseDateMs, .revenue, currency: price.currency,
                    price.milliUnits)
            }
            // An upgrade also ends a transaction with a cancellation date; it is no refund.
            if let cancelled = transaction.cancellationDateMs, !transaction.isUpgraded {
                add(transaction.environment, cancelled, .refunds)
            }
        }
        let subscriptions = chain.filter { $0.expiresDateMs != nil }.sorted(by: purchasedBefore)
        var previous: RollupTransaction?
        for transaction in subscriptions {
            defer { previous = transaction }
            if transaction.isTrialPeriod {
                add(transaction.environment, transaction.purchaseDateMs, .newTrials)
            } else if let previous, !previous.isUpgraded {
                add(transaction.environment, transaction.purchaseDateMs,
                    previous.isTrialPeriod ? .trialConversions : .renewals)
            }
        }
        for period in activePeriods(subscriptions) {
            let (first, ended) = (UTCDay(containing: period.startMs), UTCDay(containing: period.endMs))
            // A period within one day never covers a day's end: it changes no day's count.
            guard first < ended else { continue }
            add(period.environment, period.startMs, .subscriptionStarts)
            add(period.environment, period.endMs, .churn)
        }
        return cells
    }

    /// The maximal spans during which the chain gave access: its subscription transactions'
    /// [purchase, expiry) merged where they touch or overlap. A refunded or revoked transaction
    /// never gave access; an upgraded one did until the upgrade.
    static func activePeriods(_ subscriptions: [RollupTransaction])
        -> [(startMs: Int64, endMs: Int64, environment: Environment)] {
        var periods: [(startMs: Int64, endMs: Int64, environment: Environment)] = []
        for transaction in subscriptions {
            guard let expires = transaction.expiresDateMs else { continue }
            var endMs = expires
            if let cancelled = transaction.cancellationDateMs {
                guard transaction.isUpgraded else { continue }
                endMs = min(endMs, cancelled)
            }
            guard endMs > transaction.purchaseDateMs else { continue }
            if let last = periods.last, transaction.purchaseDateMs <= last.endMs {
                periods[periods.count - 1].endMs = max(last.endMs, endMs)
            } else {
                periods.append((transaction.purchaseDateMs, endMs, transaction.environment))
            }
        }
        return periods
    }

    /// Purchase order; ties by transaction id as a number (shorter digit strings first).
    static func purchasedBefore(_ lhs: RollupTransaction, _ rhs: RollupTransaction) -> Bool {
        if lhs.purchaseDateMs != rhs.purchaseDateMs { return lhs.purchaseDateMs < rhs.purchaseDateMs }
        if lhs.transactionID.utf8.count != rhs.transactionID.utf8.count {
            return lhs.transactionID.utf8.count < rhs.transactionID.utf8.count
        }
        return lhs.transactionID < rhs.transactionID
    }

    /// What to add to the rollup when a chain's contributions go from `before` to `after`:
    /// only the cells that differ.
    public static func difference(from before: [RollupKey: Int64], to after: [RollupKey: Int64])
        -> [RollupKey: Int64] {
        var delta = after
        for (key, amount) in before { delta[key, default: 0] -= amount }
        return delta.filter { $0.value != 0 }
    }

    /// Adds `delta` to `rollup` in place, dropping cells that reach zero.
    public static func add(_ delta: [RollupKey: Int64], to rollup: inout [RollupKey: Int64]) {
        for (key, amount) in delta {
            let sum = rollup[key, default: 0] + amount
            rollup[key] = sum == 0 ? nil : sum
        }
    }

    /// The figures of each day in `days`, from the rollup's cells on those days (`cells`, any
    /// environment's: only `environment`'s are read) and `activeBefore`, the chains active at
    /// the end of the day before the first (the sum of starts minus churn before it).
    public static func figures(days: ClosedRange<UTCDay>, environment: Environment, cells: [RollupKey: Int64],
                               activeBefore: Int64) -> [DailyFigures] {
        var byDay: [UTCDay: DailyFigures] = [:]
        for (key, amount) in cells where key.environment == environment && days.contains(key.day) {
            var figures = byDay[key.day] ?? DailyFigures(day: key.day)
            switch key.counter {
            case .subscriptionStarts: figures.activeSubscriptions += amount
            case .churn:
                figures.activeSubscriptions -= amount
                figures.churn += amount
            case .newTrials: figures.newTrials += amount
            case .trialConversions: figures.trialConversions += amount
            case .renewals: figures.renewals += amount
            case .refunds: figures.refunds += amount
            case .revenue: figures.revenue[key.currency, default: 0] += amount
            }
            byDay[key.day] = figures
        }
        var active = activeBefore
        return days.map { day in
            var figures = byDay[day] ?? DailyFigures(day: day)
            // Until here activeSubscriptions held the day's starts minus ends.
            active += figures.activeSubscriptions
            figures.activeSubscriptions = active
            figures.revenue = figures.revenue.filter { $0.value != 0 }
            return figures
        }
    }
}
