import Entitlements
import XCTest

/// "Now" counts every fact Apple has told us, even one dated after our clock; an explicit
/// instant still ignores what had not happened by then. One table, both kinds of question.
final class EvaluationTimeTests: XCTestCase {
    private struct Case {
        var name: String
        var transactions: [Transaction]
        var renewalInfos: [String: RenewalInfo] = [:]
        var time: EvaluationTime
        /// `nil`: no entitlement at all.
        var state: EntitlementState?
        var latestTransactionID = ""
        var expiresAtMs: Int64 = 0
        var productID = "pro.monthly"
    }

    /// Our clock in the middle of January's period.
    private static let clock = Day.at(10)
    /// Apple's clock runs 1.5 s ahead of ours.
    private static let skew: Int64 = 1_500
    private static let jan = period("1", bought: Day.jan1, expires: Day.feb1)
    /// Apple charged February early: the period starts at January's expiry, weeks after `clock`.
    private static let feb = period("2", bought: Day.feb1, expires: Day.mar1)
    private static let justBought = period("1", bought: clock + skew, expires: clock + skew + 30 * Day.ms)

    private static let cases: [Case] = [
        Case(name: "first purchase dated 1.5 s after our clock, asked now: active at once",
             transactions: [justBought], time: .now(clock),
             state: .active, latestTransactionID: "1", expiresAtMs: clock + skew + 30 * Day.ms),
        Case(name: "the same purchase, asked at an explicit instant before it: not bought yet",
             transactions: [justBought], time: .at(clock), state: nil),
        Case(name: "the same purchase, asked at its own purchase instant: active",
             transactions: [justBought], time: .at(clock + skew),
             state: .active, latestTransactionID: "1", expiresAtMs: clock + skew + 30 * Day.ms),
        Case(name: "renewal charged for the period starting at the current expiry, asked now: it extends",
             transactions: [jan, feb], time: .now(clock),
             state: .active, latestTransactionID: "2", expiresAtMs: Day.mar1),
        Case(name: "the same renewal, asked at an explicit instant before its period: ignored",
             transactions: [jan, feb], time: .at(clock),
             state: .active, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "refunded early renewal, asked now: the current period still grants",
             transactions: [jan, period("2", bought: Day.feb1, expires: Day.mar1, refunded: clock - Day.ms)],
             time: .now(clock), state: .active, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "renewal info Apple signed 1.5 s ahead (grace period opened), asked now: grace",
             transactions: [jan],
             renewalInfos: renewal(retrying: true, grace: Day.at(40), signed: Day.feb1 + Day.ms + skew),
             time: .now(Day.feb1 + Day.ms), state: .gracePeriod, latestTransactionID: "1",
             expiresAtMs: Day.feb1),
        Case(name: "the same renewal info, asked at an explicit instant before it was signed: ignored",
             transactions: [jan],
             renewalInfos: renewal(retrying: true, grace: Day.at(40), signed: Day.feb1 + Day.ms + skew),
             time: .at(Day.feb1 + Day.ms), state: .expired, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "upgrade Apple dated 1.5 s ahead, asked now: the new plan grants",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: clock + skew, upgraded: true),
                            period("2", product: "pro.premium", bought: clock + skew, expires: Day.at(40))],
             time: .now(clock), state: .active, latestTransactionID: "2", expiresAtMs: Day.at(40),
             productID: "pro.premium"),
        Case(name: "the same upgrade, asked at an explicit instant before it: the old plan",
             transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: clock + skew, upgraded: true),
                            period("2", product: "pro.premium", bought: clock + skew, expires: Day.at(40))],
             time: .at(clock), state: .active, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "state rules unchanged at now: an ended period is expired",
             transactions: [jan], time: .now(Day.feb1 + Day.ms),
             state: .expired, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "state rules unchanged at now: expiry exactly at the clock is expired",
             transactions: [jan], time: .now(Day.feb1),
             state: .expired, latestTransactionID: "1", expiresAtMs: Day.feb1),
        Case(name: "a paid period that starts after an ended one, asked now: it grants",
             transactions: [jan, period("2", bought: Day.feb1 + 2 * Day.ms, expires: Day.mar1)],
             time: .now(Day.feb1 + Day.ms), state: .active, latestTransactionID: "2", expiresAtMs: Day.mar1),
    ]

    func testNowCountsEverythingAndAnExplicitInstantFilters() {
        for testCase in Self.cases {
            let facts = UserFacts(transactions: testCase.transactions, renewalInfos: testCase.renewalInfos)
            let result = EntitlementRules.entitlements(for: facts, at: testCase.time, catalog: .empty)
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
            XCTAssertEqual(entitlement.expiresAtMs, testCase.expiresAtMs, testCase.name)
            XCTAssertEqual(entitlement.productID, testCase.productID, testCase.name)
        }
    }

    /// CheckEntitlement at now: active for the customer who just paid, evaluated at our clock
    /// (not at Apple's purchase date).
    func testCheckAtNowAnswersTheCustomerWhoJustPaid() {
        let facts = UserFacts(transactions: [Self.justBought])
        let now = EntitlementRules.check(facts, productID: "pro.monthly", entitlementID: "",
                                         at: .now(Self.clock), catalog: .empty)
        XCTAssertTrue(now.active)
        XCTAssertEqual(now.evaluatedAtMs, Self.clock)
        XCTAssertEqual(now.entitlements.map(\.purchasedAtMs), [Self.clock + Self.skew])
        let explicit = EntitlementRules.check(facts, productID: "pro.monthly", entitlementID: "",
                                              at: .at(Self.clock), catalog: .empty)
        XCTAssertFalse(explicit.active)
        XCTAssertEqual(explicit.entitlements, [])
        XCTAssertEqual(explicit.evaluatedAtMs, Self.clock)
    }

    /// Non-consumables and non-renewing subscriptions bought a moment ahead count at now too.
    func testOneOffPurchasesDatedAheadCountAtNow() throws {
        let season = try catalog("""
            {"products": [{"product_id": "season", "type": "non_renewing", "duration_ms": \(30 * Day.ms)}]}
            """)
        let facts = UserFacts(transactions: [purchase("7", product: "unlock", bought: Self.clock + Self.skew),
                                             purchase("8", product: "season", bought: Self.clock + Self.skew)])
        let result = EntitlementRules.entitlements(for: facts, at: .now(Self.clock), catalog: season)
        XCTAssertEqual(result.map(\.productID), ["unlock", "season"])
        XCTAssertEqual(result.map(\.state), [.active, .active])
        XCTAssertEqual(EntitlementRules.entitlements(for: facts, at: .at(Self.clock), catalog: season), [])
    }
}
