import Entitlements
import SeededRandom
import XCTest

/// ``EntitlementCheck/sameAnswerMs``: the instants at which the facts give the same answer, which
/// CheckEntitlement's kept answers rest on. Too wide a range hands out a stale answer (active
/// after the expiry, or expired during a grace period); these tests judge the facts again at
/// instants inside it. An absent grace period or expiry is 0, an instant every later one is past.
final class SameAnswerTests: XCTestCase {
    private static let expiry = Day.feb1
    private static let grace = Day.feb1 + 3 * Day.ms

    private func check(_ facts: UserFacts, at time: EvaluationTime, productID: String = "") -> EntitlementCheck {
        EntitlementRules.check(facts, productID: productID, entitlementID: "", at: time, catalog: .empty)
    }

    func testAnActivePeriodHoldsUntilJustBeforeItsExpiry() {
        let facts = UserFacts(transactions: [period("1", bought: Day.jan1, expires: Self.expiry)])
        let answer = check(facts, at: .now(Day.jan1 + 5))
        XCTAssertEqual(answer.sameAnswerMs, 0...(Self.expiry - 1))
        XCTAssertEqual(check(facts, at: .now(Self.expiry - 1)).entitlements, answer.entitlements)
        XCTAssertNotEqual(check(facts, at: .now(Self.expiry)).entitlements, answer.entitlements)
    }

    func testAGracePeriodIsBoundedByTheExpiryBeforeAndTheGracesEndAfter() {
        let facts = UserFacts(
            transactions: [period("1", bought: Day.jan1, expires: Self.expiry)],
            renewalInfos: renewal(retrying: true, grace: Self.grace, signed: Self.expiry))
        let inGrace = check(facts, at: .now(Self.expiry + 10))
        XCTAssertEqual(inGrace.entitlements.first?.state, .gracePeriod)
        XCTAssertEqual(inGrace.sameAnswerMs, Self.expiry...(Self.grace - 1))
        XCTAssertEqual(check(facts, at: .now(Self.grace)).entitlements.first?.state, .billingRetry)
        XCTAssertEqual(check(facts, at: .now(Self.grace)).sameAnswerMs, Self.grace...Int64.max)
    }

    func testOnlyTheFilteredEntitlementsBoundTheRange() {
        let facts = UserFacts(transactions: [
            period("1", chain: "1000", product: "pro.monthly", bought: Day.jan1, expires: Self.expiry),
            period("2", chain: "2000", product: "pro.yearly", bought: Day.jan1, expires: Day.at(400)),
        ])
        XCTAssertEqual(check(facts, at: .now(Day.jan1), productID: "pro.yearly").sameAnswerMs,
                       0...(Day.at(400) - 1))
        XCTAssertEqual(check(facts, at: .now(Day.jan1)).sameAnswerMs, 0...(Self.expiry - 1))
    }

    func testAnExplicitInstantHoldsForItselfOnly() {
        let facts = UserFacts(transactions: [period("1", bought: Day.jan1, expires: Self.expiry)])
        XCTAssertEqual(check(facts, at: .at(Day.jan1 + 5)).sameAnswerMs, (Day.jan1 + 5)...(Day.jan1 + 5))
    }

    /// Random facts, filters and instants: at every instant of the range (its ends and points
    /// between) the rules give the answer they gave at the first instant, time stamp aside.
    func testTheAnswerIsTheSameAtEveryInstantOfItsRange() {
        var random = SplitMix64(seed: 0x5EED_A115)
        let products = ["pro.monthly", "pro.yearly", "themes", "coins", "pass"]
        for round in 0..<3_000 {
            let facts = Self.randomFacts(&random, products: products)
            let filter = Bool.random(using: &random) ? "" : products.randomElement(using: &random)!
            let t0 = Day.jan1 + Int64.random(in: -5_000...160_000, using: &random)
            let first = check(facts, at: .now(t0), productID: filter)
            let range = first.sameAnswerMs
            XCTAssertTrue(range.contains(t0), "round \(round)")
            let low = max(range.lowerBound, t0 - 400_000), high = min(range.upperBound, t0 + 400_000)
            var instants = [low, high, t0]
            for _ in 0..<6 { instants.append(Int64.random(in: low...high, using: &random)) }
            for t in instants {
                let again = check(facts, at: .now(t), productID: filter)
                XCTAssertEqual(again.active, first.active, "round \(round) at t0\(t - t0 >= 0 ? "+" : "")\(t - t0)")
                XCTAssertEqual(again.entitlements, first.entitlements, "round \(round) at t0+\(t - t0): \(facts)")
                XCTAssertEqual(again.sameAnswerMs, range, "round \(round)")
            }
        }
    }

    /// One to three chains on a coarse grid of seconds, so instants, expiries, grace ends and
    /// refunds often coincide: periods, renewals, refunds, upgrades, one-off purchases of each
    /// declared type, renewal infos with and without grace or billing retry.
    private static func randomFacts(_ random: inout SplitMix64, products: [String]) -> UserFacts {
        func instant() -> Int64 { Day.jan1 + Int64.random(in: 0...150, using: &random) * 1_000 }
        var transactions: [Transaction] = []
        var renewalInfos: [String: RenewalInfo] = [:]
        for chain in 0..<Int.random(in: 1...3, using: &random) {
            let chainID = "\(1000 + chain)"
            let product = products.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let declared: ProductType? = [nil, .nonConsumable, .consumable, .nonRenewing]
                    .randomElement(using: &random)!
                let bought = instant()
                transactions.append(Transaction(
                    transactionID: "\(chainID)-0", originalTransactionID: chainID, productID: product,
                    purchaseDateMs: bought,
                    expiresDateMs: declared == .nonRenewing && Bool.random(using: &random) ? instant() : nil,
                    cancellationDateMs: Int.random(in: 0..<4, using: &random) == 0 ? instant() : nil,
                    declaredProductType: declared))
            default:
                var bought = instant()
                for index in 0..<Int.random(in: 1...3, using: &random) {
                    let expires = bought + Int64.random(in: 1...40, using: &random) * 1_000
                    transactions.append(period(
                        "\(chainID)-\(index)", chain: chainID, product: product, bought: bought, expires: expires,
                        refunded: Int.random(in: 0..<5, using: &random) == 0 ? instant() : nil,
                        upgraded: Int.random(in: 0..<6, using: &random) == 0))
                    bought = expires
                }
                if Bool.random(using: &random) {
                    renewalInfos[chainID] = RenewalInfo(
                        originalTransactionID: chainID, autoRenewStatus: Bool.random(using: &random),
                        isInBillingRetryPeriod: Bool.random(using: &random),
                        gracePeriodExpiresDateMs: Bool.random(using: &random) ? instant() : nil,
                        signedDateMs: instant())
                }
            }
        }
        transactions.shuffle(using: &random)
        return UserFacts(transactions: transactions, renewalInfos: renewalInfos)
    }
}
