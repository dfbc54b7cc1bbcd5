import Entitlements
import Testing

/// The daily rollup's rules (docs/dashboard.md), one table row per rule.
@Suite struct DailyRollupTests {
    static let day0: Int64 = 20_000
    static let hour: Int64 = 3_600_000

    /// Unix ms of `hour` o'clock on day0 + `day`.
    static func at(_ day: Int64, _ hour: Int64 = 10) -> Int64 {
        (day0 + day) * UTCDay.milliseconds + hour * Self.hour
    }

    static func subscription(_ id: String, from start: Int64, to end: Int64, trial: Bool = false,
                             cancelled: Int64? = nil, upgraded: Bool = false,
                             environment: Environment = .production,
                             price: (Int64, String)? = nil) -> RollupTransaction {
        RollupTransaction(transactionID: id, purchaseDateMs: at(start), expiresDateMs: at(end),
                          cancellationDateMs: cancelled.map { at($0, 12) }, isTrialPeriod: trial, isUpgraded: upgraded,
                          environment: environment,
                          price: price.map { TransactionPrice(transactionID: id, milliUnits: $0.0, currency: $0.1) })
    }

    /// `counter` on day0 + `day` (production, no currency unless given).
    static func cell(_ day: Int64, _ counter: RollupCounter, _ currency: String = "",
                     _ environment: Environment = .production) -> RollupKey {
        RollupKey(environment: environment, day: UTCDay(daysSince1970: day0 + day), counter: counter,
                  currency: currency)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var chain: [RollupTransaction]
        var expected: [RollupKey: Int64]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a trial, its conversion and a renewal: one active period from the trial to the last expiry",
             chain: [subscription("1", from: 0, to: 7, trial: true), subscription("2", from: 7, to: 37),
                     subscription("3", from: 37, to: 67)],
             expected: [cell(0, .newTrials): 1, cell(7, .trialConversions): 1, cell(37, .renewals): 1,
                        cell(0, .subscriptionStarts): 1, cell(67, .churn): 1]),
        Case(name: "a paid start is neither a conversion nor a renewal",
             chain: [subscription("1", from: 0, to: 30)],
             expected: [cell(0, .subscriptionStarts): 1, cell(30, .churn): 1]),
        Case(name: "a refunded transaction counts on its refund day and never gave access",
             chain: [subscription("1", from: 0, to: 30, cancelled: 5)],
             expected: [cell(5, .refunds): 1]),
        Case(name: "a refund ends the period early: churn on the refunded renewal's predecessor's expiry",
             chain: [subscription("1", from: 0, to: 30), subscription("2", from: 30, to: 60, cancelled: 31)],
             expected: [cell(0, .subscriptionStarts): 1, cell(30, .churn): 1, cell(30, .renewals): 1,
                        cell(31, .refunds): 1]),
        Case(name: "an upgrade is no refund, and the plan after it is no renewal",
             chain: [subscription("1", from: 0, to: 30, cancelled: 10, upgraded: true),
                     RollupTransaction(transactionID: "2", purchaseDateMs: at(10, 12), expiresDateMs: at(40, 12))],
             expected: [cell(0, .subscriptionStarts): 1, cell(40, .churn): 1]),
        Case(name: "a lapse and a return: two periods, two starts and two churns",
             chain: [subscription("1", from: 0, to: 30), subscription("2", from: 45, to: 75)],
             expected: [cell(0, .subscriptionStarts): 1, cell(30, .churn): 1, cell(45, .subscriptionStarts): 1,
                        cell(75, .churn): 1, cell(45, .renewals): 1]),
        Case(name: "a period inside one day never covers a day's end",
             chain: [RollupTransaction(transactionID: "1", purchaseDateMs: at(0, 1), expiresDateMs: at(0, 2))],
             expected: [:]),
        Case(name: "a one-off purchase is revenue and, refunded, a refund; no subscription counts",
             chain: [RollupTransaction(transactionID: "1", purchaseDateMs: at(3), cancellationDateMs: at(4),
                                       price: TransactionPrice(transactionID: "1", milliUnits: 4990, currency: "EUR"))],
             expected: [cell(3, .revenue, "EUR"): 4990, cell(4, .refunds): 1]),
        Case(name: "revenue per currency on the purchase day; a free trial's zero price adds nothing",
             chain: [subscription("1", from: 0, to: 7, trial: true, price: (0, "USD")),
                     subscription("2", from: 7, to: 37, price: (9990, "USD")),
                     subscription("3", from: 37, to: 67, price: (8990, "GBP"))],
             expected: [cell(0, .newTrials): 1, cell(7, .trialConversions): 1, cell(37, .renewals): 1,
                        cell(0, .subscriptionStarts): 1, cell(67, .churn): 1,
                        cell(7, .revenue, "USD"): 9990, cell(37, .revenue, "GBP"): 8990]),
        Case(name: "sandbox counts apart from production",
             chain: [subscription("1", from: 0, to: 30, environment: .sandbox)],
             expected: [cell(0, .subscriptionStarts, "", .sandbox): 1, cell(30, .churn, "", .sandbox): 1]),
    ]

    @Test(arguments: cases)
    func contributions(_ row: Case) {
        #expect(DailyRollup.contributions(of: row.chain) == row.expected)
        // Arrival order is not an input: the chain as stored, in any order, gives the same.
        #expect(DailyRollup.contributions(of: row.chain.reversed()) == row.expected)
    }

    @Test func aDuplicateAddsNothingAndALateTrialTurnsARenewalIntoAConversion() {
        let paid = [Self.subscription("2", from: 7, to: 37)]
        let before = DailyRollup.contributions(of: paid)
        // A duplicate leaves the stored facts as they were: nothing to add.
        #expect(DailyRollup.difference(from: before, to: DailyRollup.contributions(of: paid)).isEmpty)
        let late = DailyRollup.contributions(of: [Self.subscription("1", from: 0, to: 7, trial: true)] + paid)
        #expect(DailyRollup.difference(from: before, to: late) == [
            Self.cell(0, .newTrials): 1, Self.cell(7, .trialConversions): 1,
            Self.cell(0, .subscriptionStarts): 1, Self.cell(7, .subscriptionStarts): -1,
        ])
        var rollup = before
        DailyRollup.add(DailyRollup.difference(from: before, to: late), to: &rollup)
        #expect(rollup == late, "the rollup kept by differences is the rollup of the facts")
    }

    @Test func figuresCarryTheActiveCountAcrossEmptyDays() {
        let first = UTCDay(daysSince1970: Self.day0), last = first.advanced(by: 4)
        let cells: [RollupKey: Int64] = [
                     Self.cell(1, .subscriptionStarts): 3, Self.cell(3, .churn): 1, Self.cell(3, .refunds): 2,
                     Self.cell(2, .revenue, "USD"): 1990, Self.cell(9, .subscriptionStarts): 7,
                     Self.cell(1, .subscriptionStarts, "", .sandbox): 5]
        let figures = DailyRollup.figures(days: first...last, environment: .production, cells: cells,
                                          activeBefore: 10)
        #expect(figures.map(\.day) == Array(first...last))
        #expect(figures.map(\.activeSubscriptions) == [10, 13, 13, 12, 12])
        #expect(figures.map(\.churn) == [0, 0, 0, 1, 0])
        #expect(figures.map(\.refunds) == [0, 0, 0, 2, 0])
        #expect(figures[2].revenue == ["USD": 1990])
        #expect(figures[4] == DailyFigures(day: last, activeSubscriptions: 12))
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01"), (-1, "1969-12-31"), (1_796_601_600_000, "2026-12-07"),
        (1_796_687_999_999, "2026-12-07"), (951_782_400_000, "2000-02-29"),
    ])
    func utcDays(_ ms: Int64, _ text: String) {
        #expect(UTCDay(containing: ms).text == text)
        #expect(UTCDay(containing: ms).startMs <= ms)
    }
}
