import Entitlements
import XCTest

/// How products are classified, and the rules for everything that is not auto-renewable.
final class ProductTypeTests: XCTestCase {
    private struct Case {
        var name: String
        var transactions: [Transaction]
        var catalog = Catalog.empty
        var at: Int64
        /// One (state, type, expiresAtMs, entitlementID) per expected entitlement, in list order.
        var expected: [Expected]
    }

    private struct Expected: Equatable {
        var state: EntitlementState
        var type: ProductType
        var expiresAtMs: Int64
        var entitlementID: String
        var latestTransactionID: String
    }

    private static let seasonCatalog = """
        {"products": [
            {"product_id": "season.pass", "type": "non_renewing", "duration_ms": \(30 * Day.ms),
             "entitlement_id": "season"},
            {"product_id": "coins.100", "type": "consumable"},
            {"product_id": "lifetime", "type": "non_consumable", "entitlement_id": "pro"},
            {"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"}
        ]}
        """

    private static func cases() throws -> [Case] {
        let catalog = try catalog(seasonCatalog)
        let season = purchase("50", product: "season.pass", bought: Day.feb1)
        return [
            Case(name: "no catalog, expiry present: auto-renewable",
                 transactions: [period("1", bought: Day.jan1, expires: Day.feb1)], at: Day.at(3),
                 expected: [Expected(state: .active, type: .autoRenewable, expiresAtMs: Day.feb1,
                                     entitlementID: "pro.monthly", latestTransactionID: "1")]),
            Case(name: "no catalog, no expiry: non-consumable, never expires",
                 transactions: [purchase("7", product: "unlock", bought: Day.jan1)], at: Day.aug1,
                 expected: [Expected(state: .active, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "unlock", latestTransactionID: "7")]),
            Case(name: "non-consumable refunded: revoked",
                 transactions: [purchase("7", product: "unlock", bought: Day.jan1, refunded: Day.feb1)],
                 at: Day.aug1,
                 expected: [Expected(state: .revoked, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "unlock", latestTransactionID: "7")]),
            Case(name: "non-consumable bought twice: one entitlement per chain",
                 transactions: [purchase("8", product: "unlock", bought: Day.feb1, refunded: Day.mar1),
                                purchase("7", product: "unlock", bought: Day.jan1)],
                 at: Day.aug1,
                 expected: [Expected(state: .active, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "unlock", latestTransactionID: "7"),
                            Expected(state: .revoked, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "unlock", latestTransactionID: "8")]),
            Case(name: "non-consumable restored (same chain): one entitlement from the newest",
                 transactions: [purchase("7", product: "unlock", bought: Day.jan1),
                                purchase("9", chain: "7", product: "unlock", bought: Day.mar1)],
                 at: Day.aug1,
                 expected: [Expected(state: .active, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "unlock", latestTransactionID: "9")]),
            Case(name: "Apple-declared consumable grants nothing",
                 transactions: [purchase("3", product: "gems", bought: Day.jan1, declared: .consumable)],
                 at: Day.at(1), expected: []),
            Case(name: "catalog consumable grants nothing", transactions: [
                     purchase("3", product: "coins.100", bought: Day.jan1, declared: .nonConsumable)],
                 catalog: catalog, at: Day.at(1), expected: []),
            Case(name: "non-renewing inside the catalog duration: active until purchase + duration",
                 transactions: [season], catalog: catalog, at: Day.feb1 + 29 * Day.ms,
                 expected: [Expected(state: .active, type: .nonRenewing, expiresAtMs: Day.feb1 + 30 * Day.ms,
                                     entitlementID: "season", latestTransactionID: "50")]),
            Case(name: "non-renewing at purchase + duration: expired",
                 transactions: [season], catalog: catalog, at: Day.feb1 + 30 * Day.ms,
                 expected: [Expected(state: .expired, type: .nonRenewing, expiresAtMs: Day.feb1 + 30 * Day.ms,
                                     entitlementID: "season", latestTransactionID: "50")]),
            Case(name: "non-renewing refunded: revoked",
                 transactions: [purchase("50", product: "season.pass", bought: Day.feb1, refunded: Day.at(33))],
                 catalog: catalog, at: Day.at(35),
                 expected: [Expected(state: .revoked, type: .nonRenewing, expiresAtMs: Day.feb1 + 30 * Day.ms,
                                     entitlementID: "season", latestTransactionID: "50")]),
            Case(name: "non-renewing declared by Apple but not catalogued: grants nothing (fail closed)",
                 transactions: [purchase("51", product: "season.old", bought: Day.feb1, declared: .nonRenewing)],
                 at: Day.at(35),
                 expected: [Expected(state: .expired, type: .nonRenewing, expiresAtMs: Day.feb1,
                                     entitlementID: "season.old", latestTransactionID: "51")]),
            Case(name: "the catalog wins over Apple's declared type",
                 transactions: [purchase("60", product: "lifetime", bought: Day.jan1, declared: .consumable)],
                 catalog: catalog, at: Day.aug1,
                 expected: [Expected(state: .active, type: .nonConsumable, expiresAtMs: 0,
                                     entitlementID: "pro", latestTransactionID: "60")]),
            Case(name: "catalogued auto-renewable without an expiry grants nothing",
                 transactions: [purchase("61", product: "pro.monthly", bought: Day.jan1)],
                 catalog: catalog, at: Day.at(1),
                 expected: [Expected(state: .expired, type: .autoRenewable, expiresAtMs: 0,
                                     entitlementID: "pro", latestTransactionID: "61")]),
            Case(name: "non-consumable bought after T does not exist yet",
                 transactions: [purchase("7", product: "unlock", bought: Day.jun1)], at: Day.apr15,
                 expected: []),
        ]
    }

    func testProductTypes() throws {
        for testCase in try Self.cases() {
            let result = EntitlementRules.entitlements(
                for: UserFacts(transactions: testCase.transactions), at: .at(testCase.at),
                catalog: testCase.catalog)
            let actual = result.map {
                Expected(state: $0.state, type: $0.productType, expiresAtMs: $0.expiresAtMs,
                         entitlementID: $0.entitlementID, latestTransactionID: $0.latestTransactionID)
            }
            XCTAssertEqual(actual, testCase.expected, testCase.name)
        }
    }

    func testNonRenewingDurationSaturatesInsteadOfOverflowing() throws {
        let huge = try Catalog(entries: [CatalogEntry(productID: "forever", productType: .nonRenewing,
                                                      durationMs: .max)])
        let result = EntitlementRules.entitlements(
            for: UserFacts(transactions: [purchase("1", product: "forever", bought: Day.jan1)]),
            at: .at(Day.aug1), catalog: huge)
        XCTAssertEqual(result.map(\.state), [.active])
        XCTAssertEqual(result.map(\.expiresAtMs), [.max])
    }
}
