import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// The daily rollup through each backend's ``DailyFiguresReading``: kept on write, the same
/// whatever order and however often the facts arrive, and equal to the rules applied to the
/// stored facts.
struct DailyFiguresTests {
    static let day0 = UTCDay(containing: Fixture.purchasedAt)
    static let days = day0...day0.advanced(by: 70)
    static let hour: Int64 = 3_600_000

    /// A production subscription in chain "c<user>": trial on day 0, paid from day 7, renewed on 37.
    static func chain(_ user: Int) -> [Transaction] {
        let start = day0.startMs + 10 * hour
        return [(0, 7, true), (7, 37, false), (37, 67, false)].enumerated().map { index, period in
            Transaction(transactionID: "\(user)0\(index)", originalTransactionID: "c\(user)", productID: "pro",
                        purchaseDateMs: start + Int64(period.0) * UTCDay.milliseconds,
                        expiresDateMs: start + Int64(period.1) * UTCDay.milliseconds, isTrialPeriod: period.2,
                        isInIntroOfferPeriod: period.2, subscriptionGroupIdentifier: "g",
                        environment: .production, declaredProductType: .autoRenewable)
        }
    }

    static func price(_ transaction: Transaction, _ milliUnits: Int64, _ currency: String) -> TransactionPrice {
        TransactionPrice(transactionID: transaction.transactionID, milliUnits: milliUnits, currency: currency)
    }

    /// One V2 notification per transaction, each with its price.
    static func notifications(_ user: Int) -> [NotificationWrite] {
        chain(user).map { transaction in
            Fixture.notification("v2:\(transaction.transactionID)", signedAt: transaction.purchaseDateMs + 1_000,
                                 transactions: [transaction]).with(prices: [
                                    price(transaction, transaction.isTrialPeriod ? 0 : 9_990, "USD")])
        }
    }

    func figures(_ store: any EntitlementRepository) throws -> [DailyFigures] {
        let reader = try #require(store as? any DailyFiguresReading)
        return try reader.dailyFigures(days: Self.days, environment: .production)
    }

    /// The day `offset` after day 0.
    func on(_ figures: [DailyFigures], _ offset: Int) -> DailyFigures { figures[offset] }

    @Test(arguments: Backend.allCases)
    func aTrialItsConversionAndARenewal(backend: Backend) async throws {
        try await backend.withRepository { store in
            for notification in Self.notifications(1) { _ = try await store.apply(notification) }
            _ = try await store.write(Fixture.receipt("alice", Self.chain(1)))
            let figures = try self.figures(store)
            #expect(figures.count == 71)
            #expect(on(figures, 0).newTrials == 1)
            #expect(on(figures, 7).trialConversions == 1)
            #expect(on(figures, 37).renewals == 1)
            #expect(on(figures, 7).revenue == ["USD": 9_990])
            #expect(on(figures, 0).revenue.isEmpty, "a free trial's zero price is no revenue")
            #expect(figures[0...66].allSatisfy { $0.activeSubscriptions == 1 })
            #expect(on(figures, 67).activeSubscriptions == 0)
            #expect(on(figures, 67).churn == 1)
            #expect(figures.map(\.refunds).reduce(0, +) == 0)
            let sandbox = try #require(store as? any DailyFiguresReading)
                .dailyFigures(days: Self.days, environment: .sandbox)
            #expect(sandbox.allSatisfy { $0 == DailyFigures(day: $0.day) })
        }
    }

    /// Out of order, twice over, through notifications and receipts alike: the same figures
    /// as the facts arriving once, in order.
    @Test(arguments: Backend.allCases)
    func outOfOrderAndDuplicateFactsCountOnce(backend: Backend) async throws {
        var expected: [DailyFigures] = []
        try await Backend.memory.withRepository { store in
            for user in 1...3 {
                for notification in Self.notifications(user) { _ = try await store.apply(notification) }
            }
            expected = try self.figures(store)
        }
        #expect(expected[7].trialConversions == 3)
        #expect(expected[7].revenue == ["USD": 29_970])
        try await backend.withRepository { store in
            for user in [3, 1, 2] {
                let notifications = Self.notifications(user)
                for notification in notifications.reversed() + notifications { _ = try await store.apply(notification) }
                _ = try await store.write(Fixture.receipt("u\(user)", Self.chain(user).reversed()))
                // The same transaction with another price in a later notification: the first price stands.
                let renewal = Self.chain(user)[2]
                _ = try await store.apply(Fixture.notification("v2:again\(user)", signedAt: renewal.purchaseDateMs,
                                                               transactions: [renewal])
                    .with(prices: [Self.price(renewal, 1, "EUR")]))
            }
            #expect(try self.figures(store) == expected)
        }
    }

    /// A refund ends access (the refunded renewal's period goes) and counts on its day; its
    /// reversal takes both back.
    @Test(arguments: Backend.allCases)
    func aRefundAndItsReversal(backend: Backend) async throws {
        try await backend.withRepository { store in
            let chain = Self.chain(1)
            _ = try await store.write(Fixture.receipt("alice", chain))
            var refunded = chain[2]
            refunded.cancellationDateMs = chain[2].purchaseDateMs + 2 * UTCDay.milliseconds
            _ = try await store.apply(Fixture.notification("v2:refund", signedAt: refunded.cancellationDateMs! + 1,
                                                           transactions: [refunded]))
            var figures = try self.figures(store)
            #expect(on(figures, 39).refunds == 1)
            #expect(on(figures, 37).churn == 1, "the refunded renewal never gave access")
            #expect(on(figures, 37).activeSubscriptions == 0)
            _ = try await store.apply(Fixture.notification(
                "v2:reversed", signedAt: refunded.cancellationDateMs! + 10, transactions: [chain[2]],
                reversedRefunds: [chain[2].transactionID]))
            figures = try self.figures(store)
            #expect(figures.map(\.refunds).reduce(0, +) == 0)
            #expect(on(figures, 37).activeSubscriptions == 1)
            #expect(on(figures, 67).churn == 1)
        }
    }

    /// Days before the range still count towards its active subscriptions.
    @Test(arguments: Backend.allCases)
    func activeSubscriptionsCarryIntoALaterRange(backend: Backend) async throws {
        try await backend.withRepository { store in
            _ = try await store.write(Fixture.receipt("alice", Self.chain(1)))
            let reader = try #require(store as? any DailyFiguresReading)
            let later = try reader.dailyFigures(days: Self.day0.advanced(by: 40)...Self.day0.advanced(by: 41),
                                                environment: .production)
            #expect(later.map(\.activeSubscriptions) == [1, 1])
            #expect(later.map(\.renewals) == [0, 0])
        }
    }
}

extension NotificationWrite {
    func with(prices: [TransactionPrice]) -> NotificationWrite {
        var write = self
        write.prices = prices
        return write
    }
}
