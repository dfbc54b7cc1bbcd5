import Entitlements
import XCTest

/// CheckEntitlement: request matching, `active`, list order and `evaluated_at_ms`.
final class CheckEntitlementTests: XCTestCase {
    private static let catalogJSON = """
        {"products": [
            {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
            {"product_id": "pro.yearly", "type": "auto_renewable", "entitlement_id": "pro"},
            {"product_id": "pro.premium", "type": "auto_renewable", "entitlement_id": "premium"},
            {"product_id": "lifetime", "type": "non_consumable", "entitlement_id": "pro"}
        ]}
        """

    /// A user whose monthly lapsed (chain 1000), who then bought a yearly plan (chain 2000), and
    /// who owns a catalog-less non-consumable "themes" (chain 3000).
    private static let user = UserFacts(transactions: [
        period("1", chain: "1000", product: "pro.monthly", bought: Day.jan1, expires: Day.feb1),
        period("2", chain: "2000", product: "pro.yearly", bought: Day.mar1, expires: Day.at(425)),
        purchase("3", chain: "3000", product: "themes", bought: Day.jan1),
    ])

    private struct Case {
        var name: String
        var facts: UserFacts = user
        var productID = ""
        var entitlementID = ""
        var at = Day.apr15
        var active: Bool
        /// Original transaction ids of the listed entitlements, in order.
        var chains: [String]
    }

    private static let upgradedUser = UserFacts(transactions: [
        period("1", chain: "1000", product: "pro.monthly", bought: Day.jan1, expires: Day.feb1,
               refunded: Day.at(10), upgraded: true),
        period("5", chain: "5000", product: "pro.premium", bought: Day.at(10), expires: Day.at(41)),
    ])

    private static let cases: [Case] = [
        Case(name: "no filter: everything, active first", active: true, chains: ["3000", "2000", "1000"]),
        Case(name: "product id of the lapsed plan", productID: "pro.monthly", active: false,
             chains: ["1000"]),
        Case(name: "product id of the current plan", productID: "pro.yearly", active: true,
             chains: ["2000"]),
        Case(name: "entitlement id through the catalog matches both plans", entitlementID: "pro",
             active: true, chains: ["2000", "1000"]),
        Case(name: "entitlement id of a catalog-less product is its product id",
             entitlementID: "themes", active: true, chains: ["3000"]),
        Case(name: "both given: both must match", productID: "pro.monthly", entitlementID: "pro",
             active: false, chains: ["1000"]),
        Case(name: "both given but contradicting: nothing", productID: "themes", entitlementID: "pro",
             active: false, chains: []),
        Case(name: "unknown product: nothing", productID: "nope", active: false, chains: []),
        Case(name: "asked before the yearly plan existed", entitlementID: "pro", at: Day.at(20),
             active: true, chains: ["1000"]),
        Case(name: "user with no facts", facts: UserFacts(), active: false, chains: []),
        Case(name: "upgrade to a new chain: the old product is no longer active",
             facts: upgradedUser, productID: "pro.monthly", at: Day.at(20), active: false, chains: ["1000"]),
        Case(name: "upgrade to a new chain: the new product is active",
             facts: upgradedUser, entitlementID: "premium", at: Day.at(20), active: true, chains: ["5000"]),
        Case(name: "upgrade to a new chain: before the upgrade the old plan was active",
             facts: upgradedUser, at: Day.at(5), active: true, chains: ["1000"]),
    ]

    func testMatching() throws {
        let catalog = try catalog(Self.catalogJSON)
        for testCase in Self.cases {
            let check = EntitlementRules.check(
                testCase.facts, productID: testCase.productID, entitlementID: testCase.entitlementID,
                at: .at(testCase.at), catalog: catalog)
            XCTAssertEqual(check.active, testCase.active, testCase.name)
            XCTAssertEqual(check.entitlements.map(\.originalTransactionID), testCase.chains, testCase.name)
            XCTAssertEqual(check.evaluatedAtMs, testCase.at, testCase.name)
        }
    }

    /// Active first; among them never-expiring first; then expiry, latest first; then product id;
    /// then original transaction id (numerically).
    func testListOrderIsTotal() {
        let facts = UserFacts(transactions: [
            period("1", chain: "10", product: "b", bought: Day.jan1, expires: Day.feb1),
            period("2", chain: "9", product: "b", bought: Day.jan1, expires: Day.feb1),
            period("3", chain: "11", product: "a", bought: Day.jan1, expires: Day.feb1),
            period("4", chain: "12", product: "z", bought: Day.jan1, expires: Day.mar1),
            purchase("5", chain: "13", product: "y", bought: Day.jan1),
            period("6", chain: "14", product: "a", bought: Day.jan1, expires: Day.at(5)),
            purchase("7", chain: "15", product: "x", bought: Day.jan1, refunded: Day.at(2)),
        ])
        let list = EntitlementRules.entitlements(for: facts, at: .at(Day.at(10)), catalog: .empty)
        XCTAssertEqual(list.map(\.originalTransactionID), ["13", "12", "11", "9", "10", "14", "15"])
        let reversed = UserFacts(transactions: facts.transactions.reversed())
        XCTAssertEqual(EntitlementRules.entitlements(for: reversed, at: .at(Day.at(10)), catalog: .empty), list)
    }

    func testGracePeriodCountsAsActive() {
        let facts = UserFacts(
            transactions: [period("1", bought: Day.jan1, expires: Day.feb1)],
            renewalInfos: renewal(retrying: true, grace: Day.at(40), signed: Day.feb1))
        let check = EntitlementRules.check(facts, productID: "pro.monthly", entitlementID: "",
                                           at: .at(Day.at(35)), catalog: .empty)
        XCTAssertTrue(check.active)
        XCTAssertEqual(check.entitlements.map(\.state), [.gracePeriod])
    }
}
