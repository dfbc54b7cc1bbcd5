import Entitlements
import XCTest

/// The auto-renewable chain rules, one table row per rule or edge case.
final class SubscriptionChainTests: XCTestCase {
    private struct Case {
        var name: String
        var transactions: [Transaction]
        var renewalInfos: [String: RenewalInfo] = [:]
        var at: Int64
        /// `nil`: the chain must produce no entitlement at all.
        var state: EntitlementState?
        var latestTransactionID = ""
        var productID = "pro.monthly"
        var expiresAtMs: Int64?
        var gracePeriodExpiresAtMs: Int64 = 0
        var willAutoRenew = false
    }

    // Three monthly periods of chain 1000, and a resubscription in June after a lapse.
    private static let jan = period("1", bought: Day.jan1, expires: Day.feb1)
    private static let feb = period("2", bought: Day.feb1, expires: Day.mar1)
    private static let mar = period("3", bought: Day.mar1, expires: Day.apr1)
    private static let jun = period("6", bought: Day.jun1, expires: Day.jul1)
    private static let graceEnd = Day.mar1 + 16 * Day.ms

    private static let cases: [Case] = [
        Case(name: "one period covering T", transactions: [jan], at: Day.at(10),
             state: .active, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "newest-first array: the renewal is latest", transactions: [mar, jan, feb],
             at: Day.mar1 + 5 * Day.ms, state: .active, latestTransactionID: "3", expiresAtMs: Day.apr1),
        Case(name: "expiry exactly at T is expired", transactions: [jan], at: Day.feb1,
             state: .expired, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "lapsed without renewal info", transactions: [jan, feb], at: Day.apr15,
             state: .expired, latestTransactionID: "2", expiresAtMs: Day.mar1),
        Case(name: "lapsed inside the grace period (grace wins over retry)", transactions: [jan, feb],
             renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 3_600_000),
             at: Day.mar1 + 3 * Day.ms, state: .gracePeriod, latestTransactionID: "2",
             gracePeriodExpiresAtMs: graceEnd, willAutoRenew: true),
        Case(name: "grace over, Apple still retrying", transactions: [jan, feb],
             renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 3_600_000),
             at: Day.mar1 + 20 * Day.ms, state: .billingRetry, latestTransactionID: "2",
             gracePeriodExpiresAtMs: graceEnd, willAutoRenew: true),
        Case(name: "billing retry without a grace period", transactions: [feb, jan],
             renewalInfos: renewal(retrying: true, signed: Day.mar1 + 3_600_000),
             at: Day.mar1 + 3 * Day.ms, state: .billingRetry, latestTransactionID: "2", willAutoRenew: true),
        Case(name: "grace info while latest still active: ACTIVE wins", transactions: [jan, feb],
             renewalInfos: renewal(grace: graceEnd, signed: Day.feb1),
             at: Day.feb1 + 5 * Day.ms, state: .active, latestTransactionID: "2",
             gracePeriodExpiresAtMs: graceEnd, willAutoRenew: true),
        Case(name: "retrying stopped and auto-renew off: expired", transactions: [jan, feb],
             renewalInfos: renewal(autoRenew: false, signed: Day.apr1), at: Day.apr15,
             state: .expired, latestTransactionID: "2"),
        Case(name: "refunded newest renewal, older period still covers T",
             transactions: [period("2", bought: Day.at(30), expires: Day.mar1, refunded: Day.at(32)), jan],
             at: Day.at(30, hours: 12), state: .active, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "refunded newest renewal after the older period ended: revoked",
             transactions: [period("2", bought: Day.at(30), expires: Day.mar1, refunded: Day.at(32)), jan],
             at: Day.at(36), state: .revoked, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "every period refunded: revoked, fields from the newest",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(40)),
                            period("2", bought: Day.feb1, expires: Day.mar1, refunded: Day.at(40))],
             at: Day.at(45), state: .revoked, latestTransactionID: "2", expiresAtMs: Day.mar1),
        Case(name: "a refund outranks billing retry",
             transactions: [jan, period("2", bought: Day.feb1, expires: Day.mar1, refunded: Day.at(40))],
             renewalInfos: renewal(retrying: true, signed: Day.mar1), at: Day.mar1 + Day.ms,
             state: .revoked, latestTransactionID: "1", willAutoRenew: true),
        Case(name: "refunds are retroactive: refund dated after T still revokes",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(20))],
             at: Day.at(10), state: .revoked, latestTransactionID: "1"),
        Case(name: "every period upgraded away (no date): expired, not revoked",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, upgraded: true)],
             at: Day.at(10), state: .expired, latestTransactionID: "1"),
        Case(name: "upgraded with Apple's upgrade date before T: expired, not revoked",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(5),
                                   upgraded: true)],
             at: Day.at(10), state: .expired, latestTransactionID: "1"),
        Case(name: "historical query before the upgrade still sees the old plan",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(5),
                                   upgraded: true)],
             at: Day.at(2), state: .active, latestTransactionID: "1"),
        Case(name: "upgrade inside the chain: the new plan is latest",
             transactions: [period("2", product: "pro.premium", bought: Day.at(5), expires: Day.at(36)),
                            period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(5),
                                   upgraded: true)],
             at: Day.at(10), state: .active, latestTransactionID: "2", productID: "pro.premium",
             expiresAtMs: Day.at(36)),
        Case(name: "tie on expiry: the later purchase wins",
             transactions: [period("5", bought: Day.jan1, expires: Day.feb1),
                            period("4", bought: Day.jan1 + 3_600_000, expires: Day.feb1)],
             at: Day.at(10), state: .active, latestTransactionID: "4"),
        Case(name: "tie on expiry and purchase: the numerically greater id wins",
             transactions: [period("10", bought: Day.jan1, expires: Day.feb1),
                            period("9", bought: Day.jan1, expires: Day.feb1)],
             at: Day.at(10), state: .active, latestTransactionID: "10"),
        Case(name: "lapsed in March, back in June, asked about April: not entitled",
             transactions: [jun, jan, feb], renewalInfos: renewal(signed: Day.jun1 + 3_600_000),
             at: Day.apr15, state: .expired, latestTransactionID: "2", expiresAtMs: Day.mar1),
        Case(name: "lapsed in March, back in June, asked about June: entitled",
             transactions: [jun, jan, feb], renewalInfos: renewal(signed: Day.jun1 + 3_600_000),
             at: Day.jun1 + 5 * Day.ms, state: .active, latestTransactionID: "6",
             expiresAtMs: Day.jul1, willAutoRenew: true),
        Case(name: "chain not yet purchased at T: no entitlement", transactions: [jun],
             at: Day.apr15, state: nil),
        Case(name: "renewal info signed after T is ignored",
             transactions: [jan, feb],
             renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 10 * Day.ms),
             at: Day.mar1 + 3 * Day.ms, state: .expired, latestTransactionID: "2"),
        Case(name: "renewal info signed exactly at T counts",
             transactions: [jan, feb],
             renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 3 * Day.ms),
             at: Day.mar1 + 3 * Day.ms, state: .gracePeriod, latestTransactionID: "2",
             gracePeriodExpiresAtMs: graceEnd, willAutoRenew: true),
        Case(name: "another chain's renewal info does not apply", transactions: [jan, feb],
             renewalInfos: renewal(chain: "2000", retrying: true, grace: graceEnd, signed: Day.mar1),
             at: Day.mar1 + 3 * Day.ms, state: .expired, latestTransactionID: "2"),
    ]

    func testChainStates() {
        for testCase in Self.cases {
            let facts = UserFacts(transactions: testCase.transactions, renewalInfos: testCase.renewalInfos)
            let result = EntitlementRules.entitlements(for: facts, at: .at(testCase.at), catalog: .empty)
            guard let state = testCase.state else {
                XCTAssertEqual(result, [], testCase.name)
                continue
            }
            guard result.count == 1, let entitlement = result.first else {
                XCTFail("\(testCase.name): expected one entitlement, got \(result)")
                continue
            }
            XCTAssertEqual(entitlement.state, state, testCase.name)
            XCTAssertEqual(entitlement.latestTransactionID, testCase.latestTransactionID, testCase.name)
            XCTAssertEqual(entitlement.productID, testCase.productID, testCase.name)
            XCTAssertEqual(entitlement.productType, .autoRenewable, testCase.name)
            if let expiresAtMs = testCase.expiresAtMs {
                XCTAssertEqual(entitlement.expiresAtMs, expiresAtMs, testCase.name)
            }
            XCTAssertEqual(entitlement.gracePeriodExpiresAtMs, testCase.gracePeriodExpiresAtMs, testCase.name)
            XCTAssertEqual(entitlement.willAutoRenew, testCase.willAutoRenew, testCase.name)
            XCTAssertEqual(entitlement.isActive, state == .active || state == .gracePeriod, testCase.name)
        }
    }

    /// Apple's array order means nothing: every ordering of a chain gives the same answer.
    func testEveryArrayOrderGivesTheSameAnswer() {
        let renewed = [Self.jan, Self.feb, Self.mar,
                       period("4", bought: Day.apr1, expires: Day.may1, refunded: Day.at(100)),
                       period("9", chain: "2000", product: "pro.premium", bought: Day.at(95),
                              expires: Day.at(125))]
        let tied = [period("10", bought: Day.jan1, expires: Day.feb1),
                    period("9", bought: Day.jan1, expires: Day.feb1),
                    period("8", bought: Day.jan1 + 1, expires: Day.feb1 - 1),
                    period("11", bought: Day.jan1 - 1, expires: Day.feb1)]
        for (name, transactions, t) in [("renewed", renewed, Day.apr15), ("tied", tied, Day.at(10))] {
            let expected = EntitlementRules.entitlements(
                for: UserFacts(transactions: transactions), at: .at(t), catalog: .empty)
            let orderings = permutations(of: transactions)
            XCTAssertEqual(orderings.count, (1...transactions.count).reduce(1, *), name)
            for ordering in orderings {
                let result = EntitlementRules.entitlements(
                    for: UserFacts(transactions: ordering), at: .at(t), catalog: .empty)
                XCTAssertEqual(result, expected, "\(name): \(ordering.map(\.transactionID))")
            }
        }
    }

    /// Every field, once, for the common case: fields come from latest, renewal facts from
    /// the renewal info.
    func testFieldsComeFromLatestAndRenewalInfo() {
        let intro = period("1", bought: Day.jan1, expires: Day.feb1, trial: true)
        let current = period("2", bought: Day.feb1, expires: Day.mar1, intro: true, group: "group.9",
                             environment: .sandbox)
        let facts = UserFacts(transactions: [current, intro],
                              renewalInfos: renewal(autoRenew: true, grace: Day.at(70), signed: Day.feb1))
        let result = EntitlementRules.entitlements(for: facts, at: .at(Day.at(40)), catalog: .empty)
        XCTAssertEqual(result, [Entitlement(
            productID: "pro.monthly", originalTransactionID: "1000", state: .active,
            purchasedAtMs: Day.feb1, expiresAtMs: Day.mar1, gracePeriodExpiresAtMs: Day.at(70),
            willAutoRenew: true, isTrialPeriod: false, isInIntroOfferPeriod: true,
            productType: .autoRenewable, subscriptionGroupID: "group.9", environment: .sandbox,
            latestTransactionID: "2", entitlementID: "pro.monthly")])
    }
}
