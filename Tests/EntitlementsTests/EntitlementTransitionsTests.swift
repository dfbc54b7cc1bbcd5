import Entitlements
import XCTest

/// What counts as a change: CheckEntitlement's answers before and after, compared per chain.
final class EntitlementTransitionsTests: XCTestCase {
    private struct Case {
        var name: String
        var before: UserFacts
        var after: UserFacts
        var at = Day.apr15
        /// "chain previous>state" per change, `-` for a first appearance.
        var changes: [String]
    }

    private static let monthly = period("1", bought: Day.apr1, expires: Day.may1)
    private static let lapsed = period("1", bought: Day.mar1, expires: Day.apr1)
    private static let renewedAfterLapse = period("2", bought: Day.apr15 - 1_000, expires: Day.at(135))

    private static let cases: [Case] = [
        Case(
            name: "purchase: first appearance", before: UserFacts(), after: UserFacts(transactions: [monthly]),
            changes: ["1000 ->active"]),
        Case(
            name: "an expired chain appearing is still news", before: UserFacts(),
            after: UserFacts(transactions: [lapsed]), changes: ["1000 ->expired"]),
        Case(
            name: "renewal that stays active", before: UserFacts(transactions: [monthly]),
            after: UserFacts(transactions: [monthly, period("2", bought: Day.may1, expires: Day.jun1)]),
            changes: []),
        Case(
            name: "auto-renew turned off changes fields, not state",
            before: UserFacts(transactions: [monthly], renewalInfos: renewal(autoRenew: true, signed: Day.apr1)),
            after: UserFacts(transactions: [monthly], renewalInfos: renewal(autoRenew: false, signed: Day.apr15)),
            changes: []),
        Case(
            name: "renewal after a lapse", before: UserFacts(transactions: [lapsed]),
            after: UserFacts(transactions: [lapsed, renewedAfterLapse]), changes: ["1000 expired>active"]),
        Case(
            name: "entering grace", before: UserFacts(transactions: [lapsed]),
            after: UserFacts(
                transactions: [lapsed],
                renewalInfos: renewal(retrying: true, grace: Day.at(110), signed: Day.apr1)),
            changes: ["1000 expired>grace_period"]),
        Case(
            name: "entering billing retry",
            before: UserFacts(transactions: [lapsed]),
            after: UserFacts(transactions: [lapsed], renewalInfos: renewal(retrying: true, signed: Day.apr1)),
            changes: ["1000 expired>billing_retry"]),
        Case(
            name: "leaving grace: billing recovered",
            before: UserFacts(
                transactions: [lapsed],
                renewalInfos: renewal(retrying: true, grace: Day.at(110), signed: Day.apr1)),
            after: UserFacts(
                transactions: [lapsed, renewedAfterLapse],
                renewalInfos: renewal(signed: Day.apr15)),
            changes: ["1000 grace_period>active"]),
        Case(
            name: "leaving billing retry: Apple gave up",
            before: UserFacts(transactions: [lapsed], renewalInfos: renewal(retrying: true, signed: Day.apr1)),
            after: UserFacts(transactions: [lapsed], renewalInfos: renewal(autoRenew: false, signed: Day.apr15)),
            changes: ["1000 billing_retry>expired"]),
        Case(
            name: "refund", before: UserFacts(transactions: [monthly]),
            after: UserFacts(transactions: [period("1", bought: Day.apr1, expires: Day.may1, refunded: Day.at(100))]),
            changes: ["1000 active>revoked"]),
        Case(
            name: "refund reversal",
            before: UserFacts(transactions: [period("1", bought: Day.apr1, expires: Day.may1, refunded: Day.at(100))]),
            after: UserFacts(transactions: [monthly]), changes: ["1000 revoked>active"]),
        Case(
            name: "ownership moved away: withdrawn", before: UserFacts(transactions: [monthly]),
            after: UserFacts(), changes: ["1000 active>revoked"]),
        Case(
            name: "an expired chain moved away is still a loss", before: UserFacts(transactions: [lapsed]),
            after: UserFacts(), changes: ["1000 expired>revoked"]),
        Case(
            name: "a refunded chain moved away changes nothing",
            before: UserFacts(transactions: [period("1", bought: Day.apr1, expires: Day.may1, refunded: Day.at(100))]),
            after: UserFacts(), changes: []),
        Case(
            name: "one change among several chains, by chain id",
            before: UserFacts(transactions: [
                monthly, purchase("9", chain: "0900", product: "themes", bought: Day.jan1),
            ]),
            after: UserFacts(transactions: [
                monthly, purchase("9", chain: "0900", product: "themes", bought: Day.jan1),
                period("5", chain: "0500", bought: Day.apr1, expires: Day.may1),
                period("7", chain: "0700", bought: Day.jan1, expires: Day.feb1),
            ]),
            changes: ["0500 ->active", "0700 ->expired"]),
    ]

    func testTransitionsTable() {
        for testCase in Self.cases {
            let before = EntitlementRules.entitlements(for: testCase.before, at: .now(testCase.at), catalog: .empty)
            let after = EntitlementRules.entitlements(for: testCase.after, at: .now(testCase.at), catalog: .empty)
            let changes = EntitlementTransitions.between(before: before, after: after)
            XCTAssertEqual(
                changes.map {
                    "\($0.entitlement.originalTransactionID) "
                        + "\($0.previousState?.rawValue ?? "-")>\($0.entitlement.state.rawValue)"
                }, testCase.changes, testCase.name)
            for change in changes {
                if let current = after.first(where: {
                    $0.originalTransactionID == change.entitlement.originalTransactionID
                }) {
                    XCTAssertEqual(change.entitlement, current, "\(testCase.name): the answer itself")
                }
            }
        }
    }

    func testAWithdrawnEntitlementKeepsItsFieldsButGrantsNothing() {
        let active = EntitlementRules.entitlements(
            for: UserFacts(transactions: [Self.monthly], renewalInfos: renewal(signed: Day.apr1)),
            at: .now(Day.apr15), catalog: .empty)[0]
        let withdrawn = EntitlementTransitions.withdrawn(active)
        XCTAssertEqual(withdrawn.state, .revoked)
        XCTAssertFalse(withdrawn.isActive)
        XCTAssertFalse(withdrawn.willAutoRenew)
        XCTAssertEqual(withdrawn.expiresAtMs, active.expiresAtMs)
        XCTAssertEqual(withdrawn.latestTransactionID, active.latestTransactionID)
    }

    func testNextDueInstantTable() {
        let graceEnd = Day.at(130)
        let cases: [(String, UserFacts, Int64, Int64?)] = [
            ("active: its expiry", UserFacts(transactions: [Self.monthly]), Day.apr15, Day.may1),
            ("at the expiry itself: nothing ahead", UserFacts(transactions: [Self.monthly]), Day.may1, nil),
            (
                "active with a grace period after: the expiry first",
                UserFacts(transactions: [Self.monthly], renewalInfos: renewal(grace: graceEnd, signed: Day.apr1)),
                Day.apr15, Day.may1
            ),
            (
                "in grace: its end",
                UserFacts(transactions: [Self.monthly], renewalInfos: renewal(grace: graceEnd, signed: Day.apr1)),
                Day.may1 + 1, graceEnd
            ),
            ("expired: only a fact can change it", UserFacts(transactions: [Self.lapsed]), Day.apr15, nil),
            (
                "non-consumable: never", UserFacts(transactions: [purchase("3", product: "themes", bought: Day.jan1)]),
                Day.apr15, nil
            ),
        ]
        for (name, facts, at, expected) in cases {
            let entitlement = EntitlementRules.entitlements(for: facts, at: .now(at), catalog: .empty)[0]
            XCTAssertEqual(EntitlementTransitions.nextDueInstant(of: entitlement, after: at), expected, name)
        }
    }
}
