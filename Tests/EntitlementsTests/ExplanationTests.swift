import Entitlements
import XCTest

/// ExplainEntitlement's rules table: one row per rule (and per product type where the sentence
/// differs), each checked against the check it must agree with.
final class ExplanationTests: XCTestCase {
    private struct Case {
        var name: String
        var transactions: [Transaction]
        var renewalInfos: [String: RenewalInfo] = [:]
        var catalog = Catalog.empty
        /// `nil`: now, at `clock`.
        var at: Int64?
        var clock: Int64 = 0
        /// `nil`: no explanation at all (as the check answers no entitlement).
        var rule: EntitlementRule?
        var decisive = ""
        /// The chain's transactions newest first.
        var order: [String] = []
        var reason = ""
    }

    private static let jan = period("1", bought: Day.jan1, expires: Day.feb1)
    private static let feb = period("2", bought: Day.feb1, expires: Day.mar1)
    private static let graceEnd = Day.mar1 + 16 * Day.ms

    private static func cases() throws -> [Case] {
        let season = try catalog("""
            {"products": [{"product_id": "season.pass", "type": "non_renewing", "duration_ms": \(30 * Day.ms)},
                          {"product_id": "coins.100", "type": "consumable"}]}
            """)
        return [
            Case(name: "active: the renewal covers T", transactions: [jan, feb], at: Day.at(40),
                 rule: .periodCovers, decisive: "2", order: ["2", "1"],
                 reason: "ACTIVE: the period of transaction 2 runs until 2024-03-01T00:00:00Z"),
            Case(name: "active at now, by the caller's clock", transactions: [feb, jan], clock: Day.at(40) + 1500,
                 rule: .periodCovers, decisive: "2", order: ["2", "1"],
                 reason: "ACTIVE: the period of transaction 2 runs until 2024-03-01T00:00:00Z"),
            Case(name: "trial", transactions: [period("1", bought: Day.jan1, expires: Day.at(7), trial: true)],
                 at: Day.at(3), rule: .periodCovers, decisive: "1", order: ["1"],
                 reason: "ACTIVE: the period of transaction 1 (a free trial) runs until 2024-01-08T00:00:00Z"),
            Case(name: "intro offer", transactions: [period("1", bought: Day.jan1, expires: Day.feb1, intro: true)],
                 at: Day.at(3), rule: .periodCovers, decisive: "1", order: ["1"],
                 reason: "ACTIVE: the period of transaction 1 (an introductory offer) runs until 2024-02-01T00:00:00Z"),
            Case(name: "expired: lapsed without renewal", transactions: [jan, feb], at: Day.apr15,
                 rule: .periodEnded, decisive: "2", order: ["2", "1"],
                 reason: "EXPIRED: the period of transaction 2 ended at 2024-03-01T00:00:00Z, and no later"
                     + " transaction renewed it"),
            Case(name: "grace period", transactions: [jan, feb],
                 renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 3_600_000),
                 at: Day.mar1 + 3 * Day.ms, rule: .gracePeriod, decisive: "2", order: ["2", "1"],
                 reason: "GRACE_PERIOD: the period of transaction 2 ended at 2024-03-01T00:00:00Z, and Apple's"
                     + " grace period runs until 2024-03-17T00:00:00Z"),
            Case(name: "billing retry after the grace period", transactions: [jan, feb],
                 renewalInfos: renewal(retrying: true, grace: graceEnd, signed: Day.mar1 + 3_600_000),
                 at: Day.mar1 + 20 * Day.ms, rule: .billingRetry, decisive: "2", order: ["2", "1"],
                 reason: "BILLING_RETRY: the period of transaction 2 ended at 2024-03-01T00:00:00Z, and Apple's"
                     + " grace period ended at 2024-03-17T00:00:00Z, and Apple is still retrying the charge"),
            Case(name: "billing retry without grace", transactions: [jan, feb],
                 renewalInfos: renewal(retrying: true, signed: Day.mar1 + 3_600_000),
                 at: Day.mar1 + 3 * Day.ms, rule: .billingRetry, decisive: "2", order: ["2", "1"],
                 reason: "BILLING_RETRY: the period of transaction 2 ended at 2024-03-01T00:00:00Z, and Apple is"
                     + " retrying the charge without a grace period"),
            Case(name: "refunded: rests on the refund, not on the older period",
                 transactions: [jan, period("2", bought: Day.feb1, expires: Day.mar1, refunded: Day.at(40, hours: 6))],
                 at: Day.at(45), rule: .refunded, decisive: "2", order: ["2", "1"],
                 reason: "REVOKED: transaction 2, the chain's newest, was refunded at 2024-02-10T06:00:00Z, and Apple"
                     + " treats a refunded purchase as never made"),
            Case(name: "revoked: Family Sharing withdrawn",
                 transactions: [Transaction(transactionID: "3", originalTransactionID: "3", productID: "unlock",
                                            purchaseDateMs: Day.jan1, cancellationDateMs: Day.feb1,
                                            inAppOwnershipType: "FAMILY_SHARED")],
                 at: Day.at(45), rule: .refunded, decisive: "3", order: ["3"],
                 reason: "REVOKED: transaction 3, the chain's newest, was revoked at 2024-02-01T00:00:00Z (Family"
                     + " Sharing access withdrawn)"),
            Case(name: "upgraded away", transactions: [period("1", bought: Day.jan1, expires: Day.feb1,
                                                              refunded: Day.at(5), upgraded: true)],
                 at: Day.at(10), rule: .upgradedAway, decisive: "1", order: ["1"],
                 reason: "EXPIRED: transaction 1 was upgraded to another plan at 2024-01-06T00:00:00Z, so this"
                     + " chain no longer grants access"),
            Case(name: "upgrade inside the chain: the new plan is decisive",
                 transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(5), upgraded: true),
                                period("2", product: "pro.premium", bought: Day.at(5), expires: Day.at(36))],
                 at: Day.at(10), rule: .periodCovers, decisive: "2", order: ["2", "1"],
                 reason: "ACTIVE: the period of transaction 2 runs until 2024-02-06T00:00:00Z"),
            Case(name: "before the upgrade, the old plan still covers",
                 transactions: [period("1", bought: Day.jan1, expires: Day.feb1, refunded: Day.at(5), upgraded: true),
                                period("2", product: "pro.premium", bought: Day.at(5), expires: Day.at(36))],
                 at: Day.at(2), rule: .periodCovers, decisive: "1", order: ["1"],
                 reason: "ACTIVE: the period of transaction 1 runs until 2024-02-01T00:00:00Z"),
            Case(name: "non-consumable", transactions: [purchase("7", product: "unlock", bought: Day.at(3, hours: 9))],
                 at: Day.aug1, rule: .periodCovers, decisive: "7", order: ["7"],
                 reason: "ACTIVE: non-consumable purchase 7, bought at 2024-01-04T09:00:00Z, never expires and was"
                     + " not refunded"),
            Case(name: "non-renewing within the catalog's duration",
                 transactions: [purchase("50", product: "season.pass", bought: Day.feb1)], catalog: season,
                 at: Day.at(40), rule: .periodCovers, decisive: "50", order: ["50"],
                 reason: "ACTIVE: non-renewing purchase 50, bought at 2024-02-01T00:00:00Z, runs until"
                     + " 2024-03-02T00:00:00Z (the catalog's duration of 30 days)"),
            Case(name: "non-renewing past the catalog's duration",
                 transactions: [purchase("50", product: "season.pass", bought: Day.feb1)], catalog: season,
                 at: Day.apr1, rule: .periodEnded, decisive: "50", order: ["50"],
                 reason: "EXPIRED: non-renewing purchase 50, bought at 2024-02-01T00:00:00Z, ended at"
                     + " 2024-03-02T00:00:00Z (the catalog's duration of 30 days)"),
            Case(name: "non-renewing Apple declared, missing from the catalog",
                 transactions: [purchase("51", product: "season.other", bought: Day.feb1, declared: .nonRenewing)],
                 at: Day.apr1, rule: .periodEnded, decisive: "51", order: ["51"],
                 reason: "EXPIRED: non-renewing purchase 51 has no duration in the catalog, so it grants nothing"
                     + " after its purchase at 2024-02-01T00:00:00Z"),
            Case(name: "consumable: no entitlement, no explanation",
                 transactions: [purchase("60", product: "coins.100", bought: Day.feb1)], catalog: season,
                 at: Day.apr1, rule: nil),
            Case(name: "not yet purchased at an explicit instant", transactions: [feb], at: Day.at(10), rule: nil),
            Case(name: "a renewal bought after the instant is left out", transactions: [jan, feb],
                 at: Day.at(20), rule: .periodCovers, decisive: "1", order: ["1"],
                 reason: "ACTIVE: the period of transaction 1 runs until 2024-02-01T00:00:00Z"),
        ]
    }

    func testEachRuleNamesItsTransaction() throws {
        for testCase in try Self.cases() {
            let facts = UserFacts(transactions: testCase.transactions, renewalInfos: testCase.renewalInfos)
            let time: EvaluationTime = testCase.at.map(EvaluationTime.at) ?? .now(testCase.clock)
            let explanations = EntitlementRules.explain(facts, productID: "", entitlementID: "", at: time,
                                                        catalog: testCase.catalog)
            let check = EntitlementRules.check(facts, productID: "", entitlementID: "", at: time,
                                               catalog: testCase.catalog)
            XCTAssertEqual(explanations.map(\.entitlement), check.entitlements, testCase.name)
            guard let rule = testCase.rule else {
                XCTAssertEqual(explanations, [], testCase.name)
                continue
            }
            guard explanations.count == 1, let explanation = explanations.first else {
                XCTFail("\(testCase.name): expected one explanation, got \(explanations)")
                continue
            }
            XCTAssertEqual(explanation.rule, rule, testCase.name)
            XCTAssertEqual(explanation.entitlement.state, rule.state, testCase.name)
            XCTAssertEqual(explanation.decisiveTransactionID, testCase.decisive, testCase.name)
            XCTAssertEqual(explanation.transactions.map(\.transactionID), testCase.order, testCase.name)
            XCTAssertEqual(explanation.reason, testCase.reason, testCase.name)
            XCTAssertEqual(explanation.evaluatedAtMs, check.evaluatedAtMs, testCase.name)
        }
    }

    /// Filters and order are the check's: several chains, narrowed by product and entitlement.
    func testFiltersAndOrderMatchTheCheck() throws {
        let catalog = try catalog("""
            {"products": [{"product_id": "pro.monthly", "type": "auto_renewable", "entitlement_id": "pro"},
                          {"product_id": "lifetime", "type": "non_consumable", "entitlement_id": "pro"}]}
            """)
        let facts = UserFacts(transactions: [
            Self.jan, Self.feb, purchase("7", product: "lifetime", bought: Day.jan1),
            purchase("8", product: "unlock", bought: Day.jan1, refunded: Day.feb1),
            period("9", chain: "2000", product: "pro.yearly", bought: Day.jan1, expires: Day.at(400)),
        ])
        for (product, entitlement) in [("", ""), ("pro.monthly", ""), ("", "pro"), ("lifetime", "pro"),
                                       ("unlock", "pro"), ("missing", "")] {
            for time in [EvaluationTime.at(Day.at(40)), .at(Day.aug1), .now(Day.apr1)] {
                let explained = EntitlementRules.explain(facts, productID: product, entitlementID: entitlement,
                                                         at: time, catalog: catalog)
                let checked = EntitlementRules.check(facts, productID: product, entitlementID: entitlement,
                                                     at: time, catalog: catalog)
                XCTAssertEqual(explained.map(\.entitlement), checked.entitlements, "\(product)/\(entitlement)")
                for explanation in explained {
                    XCTAssertEqual(explanation.rule.state, explanation.entitlement.state)
                    XCTAssertNotNil(explanation.decisiveTransaction, "\(product)/\(entitlement)")
                    XCTAssertTrue(explanation.transactions.allSatisfy {
                        $0.originalTransactionID == explanation.entitlement.originalTransactionID
                    })
                }
            }
        }
    }

    func testFirstReportersComeFromPurchaseAndRenewalEvents() {
        func event(_ id: String, _ kind: HistoryEvent.Kind, _ transaction: String,
                   _ source: HistoryEvent.Source) -> HistoryEvent {
            HistoryEvent(eventID: id, kind: kind, occurredAtMs: 0, productID: "p", transactionID: transaction,
                         originalTransactionID: "1", environment: .production, source: source)
        }
        let events = [
            event("refund:2", .refund, "2", .notificationV2),
            event("renewal:2", .renewal, "2", .notificationV1),
            // A receipt reported it first; a purchase notification later made it a PURCHASE.
            event("renewal:3", .purchase, "3", .receipt),
            event("purchase:1", .purchase, "1", .receipt),
            event("product_change:to:4", .productChange, "4", .notificationV2),
        ]
        XCTAssertEqual(HistoryEvent.firstReporters(in: events),
                       ["1": .receipt, "2": .notificationV1, "3": .receipt])
    }
}
