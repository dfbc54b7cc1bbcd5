import Entitlements
import XCTest

/// A cancellation date is an upgrade, a Family Sharing revocation or a refund, and each is one
/// event whichever of a receipt, a V1 and a V2 notification reports it first.
final class HistoryCancellationTests: XCTestCase {
    private static let upgradedAt = Day.at(20)
    /// Chain 1: the basic plan bought Jan 1, replaced on day 20 by premium (transaction 3).
    private static let basic = period("1", chain: "1", product: "basic.monthly", bought: Day.jan1, expires: Day.feb1)
    private static let basicUpgraded = period("1", chain: "1", product: "basic.monthly", bought: Day.jan1,
                                              expires: Day.feb1, refunded: upgradedAt, upgraded: true)
    private static let premium = period("3", chain: "1", product: "premium.monthly", bought: upgradedAt,
                                        expires: upgradedAt + 30 * Day.ms)
    private static let renewal = period("6", chain: "1", bought: Day.jun1, expires: Day.jul1)
    private static let refunded = period("6", chain: "1", bought: Day.jun1, expires: Day.jul1, refunded: Day.at(160))
    private static var shared: Transaction {
        var transaction = refunded
        transaction.inAppOwnershipType = "FAMILY_SHARED"
        return transaction
    }

    private static func report(_ type: String, subject: String?, _ kind: HistoryEvent.Kind?,
                               productChange: NotificationReport.Happening? = nil) -> NotificationReport {
        NotificationReport(appleNotificationType: type, subjectTransactionID: subject, kind: kind,
                           productChange: productChange)
    }

    private static let cancelUpgrade = report("CANCEL", subject: "1", .productChange, productChange: .upgraded)
    private static let upgradeV2 = report("DID_CHANGE_RENEWAL_PREF/UPGRADE", subject: "3", .productChange,
                                          productChange: .upgrade)

    private struct EventCase {
        var name: String
        var incoming: Transaction
        var stored: Transaction?
        var reversedAtMs: Int64?
        var notification: NotificationReport?
        /// "<event id> <kind> '<Apple type>' @<day>" of each derived event.
        var expected: [String]
    }

    private static let eventCases: [EventCase] = [
        EventCase(name: "a receipt's upgraded plan is a product change at the upgrade, not a refund",
                  incoming: basicUpgraded, stored: basic,
                  expected: ["product_change:1 product_change '' @20"]),
        EventCase(name: "an upgraded plan seen first with its upgrade: purchase, then the product change",
                  incoming: basicUpgraded,
                  expected: ["purchase:1 purchase '' @0", "product_change:1 product_change '' @20"]),
        EventCase(name: "a V1 CANCEL of the upgraded plan names the same event",
                  incoming: basicUpgraded, stored: basic, notification: cancelUpgrade,
                  expected: ["product_change:1 product_change 'CANCEL' @20"]),
        EventCase(name: "a REFUND notification cannot make an upgrade a refund",
                  incoming: basicUpgraded, stored: basic, notification: report("REFUND", subject: "1", .refund),
                  expected: ["product_change:1 product_change 'REFUND' @20"]),
        EventCase(name: "the upgrade's new plan is a renewal of the chain",
                  incoming: premium, notification: upgradeV2,
                  expected: ["renewal:3 renewal 'DID_CHANGE_RENEWAL_PREF/UPGRADE' @20"]),
        EventCase(name: "a receipt's family-shared cancellation is a revocation",
                  incoming: shared, stored: renewal, expected: ["revoke:6 revoke '' @160"]),
        EventCase(name: "a V2 REVOKE reports the revocation once, with its type",
                  incoming: shared, stored: renewal, notification: report("REVOKE", subject: "6", .revoke),
                  expected: ["revoke:6 revoke 'REVOKE' @160"]),
        EventCase(name: "REVOKE about a transaction not marked FAMILY_SHARED: still a revocation",
                  incoming: refunded, stored: renewal, notification: report("REVOKE", subject: "6", .revoke),
                  expected: ["revoke:6 revoke 'REVOKE' @160"]),
        EventCase(name: "REVOKE about another transaction: this one's refund stays a refund",
                  incoming: refunded, stored: renewal, notification: report("REVOKE", subject: "9", .revoke),
                  expected: ["refund:6 refund 'REVOKE' @160"]),
        EventCase(name: "a revocation after a reversed refund gets its date in the id",
                  incoming: shared, stored: renewal, reversedAtMs: Day.at(150),
                  expected: ["revoke:6:\(Day.at(160)) revoke '' @160"]),
        EventCase(name: "a purchased transaction's cancellation is still a refund",
                  incoming: refunded, stored: renewal, expected: ["refund:6 refund '' @160"]),
        EventCase(name: "the same revocation again adds nothing", incoming: shared, stored: shared, expected: []),
    ]

    func testEachCancellationIsOneEventOfItsKind() {
        for testCase in Self.eventCases {
            let events = HistoryDerivation.events(
                incoming: testCase.incoming, stored: testCase.stored, source: .receipt,
                refundReversedAtMs: testCase.reversedAtMs, notification: testCase.notification)
            XCTAssertEqual(
                events.map {
                    "\($0.eventID) \($0.kind.rawValue) '\($0.appleNotificationType)' "
                        + "@\(($0.occurredAtMs - Day.epoch) / Day.ms)"
                }, testCase.expected, testCase.name)
        }
    }

    private struct ConfirmationCase {
        var name: String
        var incoming: Transaction
        var notification: NotificationReport
        var expected: HistoryConfirmation?
    }

    private static let confirmationCases: [ConfirmationCase] = [
        ConfirmationCase(
            name: "V1 CANCEL after a receipt reported the upgrade: its product change is named",
            incoming: basicUpgraded, notification: cancelUpgrade,
            expected: HistoryConfirmation(eventIDs: ["product_change:1"], appleNotificationType: "CANCEL")),
        ConfirmationCase(
            name: "an upgrade notification about a plan that was not upgraded confirms nothing",
            incoming: basic,
            notification: report(
                "CANCEL", subject: "1", .productChange,
                productChange: .upgraded), expected: nil),
        ConfirmationCase(
            name: "V2 UPGRADE names its new plan's renewal (the product change is the old plan's)",
            incoming: premium, notification: upgradeV2,
            expected: HistoryConfirmation(
                eventIDs: ["renewal:3", "purchase:3"],
                appleNotificationType: "DID_CHANGE_RENEWAL_PREF/UPGRADE")),
        ConfirmationCase(
            name: "a downgrade confirms nothing: it is its own event",
            incoming: renewal,
            notification: report(
                "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", subject: "6",
                .productChange), expected: nil),
        ConfirmationCase(
            name: "REVOKE after a receipt reported the family-shared revocation",
            incoming: shared, notification: report("REVOKE", subject: "6", .revoke),
            expected: HistoryConfirmation(
                eventIDs: ["refund:6", "refund:6:\(Day.at(160))", "revoke:6", "revoke:6:\(Day.at(160))"],
                occurredAtMs: Day.at(160), kind: .revoke, appleNotificationType: "REVOKE")),
        ConfirmationCase(
            name: "REFUND never turns an upgrade's product change into a refund",
            incoming: basicUpgraded, notification: report("REFUND", subject: "1", .refund), expected: nil),
    ]

    func testConfirmations() {
        for testCase in Self.confirmationCases {
            XCTAssertEqual(HistoryDerivation.confirmation(of: testCase.incoming, stored: testCase.incoming,
                                                          by: testCase.notification),
                           testCase.expected, testCase.name)
        }
    }

    private struct UpgradeCase {
        var name: String
        var chain: [Transaction]
        var notification: NotificationReport = upgradeV2
        /// "<event id> <transaction> <product> @<day>", or nil when nothing is recorded.
        var expected: String?
    }

    private static let upgradeCases: [UpgradeCase] = [
        UpgradeCase(name: "the notification first: the plan it replaced, at the new plan's purchase",
                    chain: [basic, premium], expected: "product_change:1 1 basic.monthly @20"),
        UpgradeCase(name: "a receipt first: the same event, at the upgrade date Apple gave the old plan",
                    chain: [period("1", chain: "1", product: "basic.monthly", bought: Day.jan1, expires: Day.feb1,
                                   refunded: upgradedAt - 2_000, upgraded: true), premium],
                    expected: "product_change:1 1 basic.monthly @19"),
        UpgradeCase(name: "the newest earlier plan is the one replaced, not the first",
                    chain: [period("0", chain: "1", bought: Day.at(-31), expires: Day.jan1), basic, premium],
                    expected: "product_change:1 1 basic.monthly @20"),
        UpgradeCase(name: "a refunded period was not replaced",
                    chain: [basic, period("2", chain: "1", bought: Day.at(10), expires: Day.feb1 + 10 * Day.ms,
                                          refunded: Day.at(12)), premium],
                    expected: "product_change:1 1 basic.monthly @20"),
        UpgradeCase(name: "later renewals of the new plan are not candidates",
                    chain: [basic, premium, period("4", chain: "1", product: "premium.monthly", bought: Day.at(50),
                                                   expires: Day.at(80))],
                    expected: "product_change:1 1 basic.monthly @20"),
        UpgradeCase(name: "no earlier plan known: recorded against the new plan, at its purchase",
                    chain: [premium], expected: "product_change:to:3 3 premium.monthly @20"),
        UpgradeCase(name: "a plan that had ended before the new one was bought was not replaced",
                    chain: [period("0", chain: "1", bought: Day.at(-31), expires: Day.jan1), premium],
                    expected: "product_change:to:3 3 premium.monthly @20"),
        UpgradeCase(name: "a downgrade is no upgrade", chain: [basic, premium],
                    notification: report("DID_CHANGE_RENEWAL_PREF/DOWNGRADE", subject: "3", .productChange),
                    expected: nil),
    ]

    func testAV2UpgradeIsRecordedAgainstThePlanItReplaced() {
        for testCase in Self.upgradeCases {
            let upgrade = HistoryDerivation.upgrade(
                to: Self.premium, chain: testCase.chain, source: .notificationV2,
                notification: testCase.notification)
            XCTAssertEqual(
                upgrade.map {
                    "\($0.event.eventID) \($0.event.transactionID) \($0.event.productID) "
                        + "@\(($0.event.occurredAtMs - Day.epoch) / Day.ms)"
                }, testCase.expected, testCase.name)
            if let upgrade {
                XCTAssertEqual(upgrade.event.kind, .productChange, testCase.name)
                XCTAssertEqual(upgrade.event.appleNotificationType, "DID_CHANGE_RENEWAL_PREF/UPGRADE", testCase.name)
                XCTAssertEqual(upgrade.confirmation.eventIDs, [upgrade.event.eventID], testCase.name)
            }
        }
    }

    private struct JoinCase {
        var name: String
        var chain: [Transaction]
        var recorded: Set<String>
        var notification: NotificationReport?
        /// The event ids left, then the ids the confirmation names ("-" for none).
        var expected: String
    }

    private static let joinCases: [JoinCase] = [
        JoinCase(name: "a V2 upgrade recorded against the new plan: the receipt adds no second event",
                 chain: [basic, premium], recorded: ["product_change:to:3"], expected: " | -"),
        JoinCase(name: "a V1 CANCEL reporting it names that event",
                 chain: [basic, premium], recorded: ["product_change:to:3"], notification: cancelUpgrade,
                 expected: " | product_change:to:3"),
        JoinCase(name: "nothing recorded against the new plan: the replaced plan's event stands",
                 chain: [basic, premium], recorded: [], expected: "product_change:1 | -"),
        JoinCase(name: "the new plan unknown: the replaced plan's event stands",
                 chain: [basic], recorded: ["product_change:to:3"], expected: "product_change:1 | -"),
        JoinCase(name: "only the plan bought next is the new plan",
                 chain: [basic, premium, period("4", chain: "1", bought: Day.at(50), expires: Day.at(80))],
                 recorded: ["product_change:to:4"], expected: "product_change:1 | -"),
    ]

    func testAReplacedPlanJoinsAnUpgradeRecordedAgainstTheNewPlan() {
        for testCase in Self.joinCases {
            let events = HistoryDerivation.events(incoming: Self.basicUpgraded, stored: Self.basic, source: .receipt,
                                                  notification: testCase.notification)
            let joined = HistoryDerivation.joiningNewPlanUpgrade(
                events: events, confirmation: nil, of: Self.basicUpgraded, chain: testCase.chain,
                isRecorded: { testCase.recorded.contains($0) })
            let confirmed = joined.confirmation?.eventIDs.joined(separator: ",") ?? "-"
            XCTAssertEqual(joined.events.map(\.eventID).joined(separator: ",") + " | " + confirmed, testCase.expected,
                           testCase.name)
            if let confirmation = joined.confirmation {
                XCTAssertEqual(confirmation.appleNotificationType, "CANCEL", testCase.name)
            }
        }
        // A V1 CANCEL after the receipt: its confirmation moves to the event that stands.
        let confirmation = HistoryDerivation.confirmation(of: Self.basicUpgraded, stored: Self.basicUpgraded,
                                                          by: Self.cancelUpgrade)
        let joined = HistoryDerivation.joiningNewPlanUpgrade(
            events: [], confirmation: confirmation, of: Self.basicUpgraded, chain: [Self.basicUpgraded, Self.premium],
            isRecorded: { $0 == "product_change:to:3" })
        XCTAssertEqual(joined.confirmation?.eventIDs, ["product_change:to:3"])
    }

    func testOnlyAnUpgradeNotificationsProductChangeNamesATransactionsHappening() {
        XCTAssertNil(Self.report("DID_CHANGE_RENEWAL_PREF", subject: "1", .productChange).happening)
        XCTAssertEqual(Self.cancelUpgrade.happening, .upgraded)
        XCTAssertEqual(Self.upgradeV2.happening, .upgrade)
        XCTAssertEqual(Self.report("REVOKE", subject: "6", .revoke).happening, .revoke)
        XCTAssertNil(Self.report("EXPIRED", subject: "6", .expired, productChange: .upgrade).happening,
                     "the product change reading applies to product changes only")
    }
}
