import Entitlements
import XCTest

/// Which events a transaction fact adds, and which existing event a notification confirms,
/// depending on who reported it.
final class HistoryDerivationTests: XCTestCase {
    private static let first = period("1", chain: "1", bought: Day.jan1, expires: Day.feb1)
    private static let resubscribed = period("6", chain: "1", bought: Day.jun1, expires: Day.jul1)
    private static let refunded = period("6", chain: "1", bought: Day.jun1, expires: Day.jul1, refunded: Day.at(160))

    private static func report(_ type: String, subject: String?, _ kind: HistoryEvent.Kind?) -> NotificationReport {
        NotificationReport(appleNotificationType: type, subjectTransactionID: subject, kind: kind)
    }

    private struct EventCase {
        var name: String
        var incoming: Transaction
        var stored: Transaction?
        var source: HistoryEvent.Source = .notificationV2
        var notification: NotificationReport?
        /// (event id, kind, Apple type) of each derived event.
        var expected: [String]
    }

    private static let eventCases: [EventCase] = [
        EventCase(name: "a receipt's first transaction is a purchase, unnamed", incoming: first,
                  source: .receipt, expected: ["purchase:1 purchase ''"]),
        EventCase(name: "a receipt's later transaction is a renewal, unnamed", incoming: resubscribed,
                  source: .receipt, expected: ["renewal:6 renewal ''"]),
        EventCase(name: "SUBSCRIBED/RESUBSCRIBE makes its subject a purchase", incoming: resubscribed,
                  notification: report("SUBSCRIBED/RESUBSCRIBE", subject: "6", .purchase),
                  expected: ["purchase:6 purchase 'SUBSCRIBED/RESUBSCRIBE'"]),
        EventCase(name: "SUBSCRIBED/INITIAL_BUY names the chain's purchase", incoming: first,
                  notification: report("SUBSCRIBED/INITIAL_BUY", subject: "1", .purchase),
                  expected: ["purchase:1 purchase 'SUBSCRIBED/INITIAL_BUY'"]),
        EventCase(name: "a purchase notification about another transaction changes no kind",
                  incoming: resubscribed, source: .notificationV1,
                  notification: report("INITIAL_BUY", subject: "1", .purchase),
                  expected: ["renewal:6 renewal 'INITIAL_BUY'"]),
        EventCase(name: "DID_RENEW/BILLING_RECOVERY names the renewal it reported", incoming: resubscribed,
                  notification: report("DID_RENEW/BILLING_RECOVERY", subject: "6", .billingRecovered),
                  expected: ["renewal:6 renewal 'DID_RENEW/BILLING_RECOVERY'"]),
        EventCase(name: "a V1 unified receipt's other transactions are named by the notification too",
                  incoming: first, source: .notificationV1,
                  notification: report("DID_RENEW", subject: "6", .renewal),
                  expected: ["purchase:1 purchase 'DID_RENEW'"]),
        EventCase(name: "a V1 CANCEL's derived refund carries CANCEL", incoming: refunded, stored: resubscribed,
                  source: .notificationV1, notification: report("CANCEL", subject: "6", .refund),
                  expected: ["refund:6 refund 'CANCEL'"]),
        EventCase(name: "a new refunded transaction: both events carry the type", incoming: refunded,
                  notification: report("REFUND", subject: "6", .refund),
                  expected: ["renewal:6 renewal 'REFUND'", "refund:6 refund 'REFUND'"]),
        EventCase(name: "a known transaction unchanged adds nothing", incoming: resubscribed, stored: resubscribed,
                  notification: report("DID_RENEW", subject: "6", .renewal), expected: []),
    ]

    func testEventsCarryTheReportingNotificationsType() {
        for testCase in Self.eventCases {
            let events = HistoryDerivation.events(
                incoming: testCase.incoming, stored: testCase.stored, source: testCase.source,
                notification: testCase.notification)
            XCTAssertEqual(events.map { "\($0.eventID) \($0.kind.rawValue) '\($0.appleNotificationType)'" },
                           testCase.expected, testCase.name)
            XCTAssertTrue(events.allSatisfy { $0.source == testCase.source }, testCase.name)
        }
    }

    private struct ConfirmationCase {
        var name: String
        var incoming: Transaction
        var stored: Transaction?
        var notification: NotificationReport?
        var expected: HistoryConfirmation?
    }

    /// Every id transaction 6's cancellation at day 160 may have been recorded under.
    private static let cancellationIDs = ["refund:6", "refund:6:\(Day.at(160))", "revoke:6", "revoke:6:\(Day.at(160))"]

    private static let confirmationCases: [ConfirmationCase] = [
        ConfirmationCase(name: "SUBSCRIBED/RESUBSCRIBE after a receipt: the renewal becomes a purchase",
                         incoming: resubscribed, stored: resubscribed,
                         notification: report("SUBSCRIBED/RESUBSCRIBE", subject: "6", .purchase),
                         expected: HistoryConfirmation(eventIDs: ["purchase:6", "renewal:6"], kind: .purchase,
                                                       appleNotificationType: "SUBSCRIBED/RESUBSCRIBE")),
        ConfirmationCase(name: "DID_RENEW after a receipt: the renewal is named, its kind kept",
                         incoming: resubscribed, stored: resubscribed,
                         notification: report("DID_RENEW", subject: "6", .renewal),
                         expected: HistoryConfirmation(eventIDs: ["renewal:6"], appleNotificationType: "DID_RENEW")),
        ConfirmationCase(name: "DID_RECOVER (V1) confirms the renewal it paid for",
                         incoming: resubscribed, stored: resubscribed,
                         notification: report("DID_RECOVER", subject: "6", .billingRecovered),
                         expected: HistoryConfirmation(eventIDs: ["renewal:6"], appleNotificationType: "DID_RECOVER")),
        ConfirmationCase(name: "REFUND after a receipt showed it: the refund at that date is named",
                         incoming: refunded, stored: refunded,
                         notification: report("REFUND", subject: "6", .refund),
                         expected: HistoryConfirmation(eventIDs: cancellationIDs, occurredAtMs: Day.at(160),
                                                       appleNotificationType: "REFUND")),
        ConfirmationCase(name: "REVOKE makes the refund a receipt recorded from the revocation a REVOKE",
                         incoming: refunded, stored: refunded,
                         notification: report("REVOKE", subject: "6", .revoke),
                         expected: HistoryConfirmation(eventIDs: cancellationIDs, occurredAtMs: Day.at(160),
                                                       kind: .revoke, appleNotificationType: "REVOKE")),
        ConfirmationCase(name: "a refund notification whose transaction carries no refund confirms nothing",
                         incoming: resubscribed, stored: resubscribed,
                         notification: report("REFUND", subject: "6", .refund), expected: nil),
        ConfirmationCase(name: "auto-renew changes are their own event: nothing confirmed",
                         incoming: resubscribed, stored: resubscribed,
                         notification: report("DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", subject: "6",
                                              .autoRenewDisabled), expected: nil),
        ConfirmationCase(name: "not the notification's subject: nothing confirmed",
                         incoming: first, stored: first,
                         notification: report("DID_RENEW", subject: "6", .renewal), expected: nil),
        ConfirmationCase(name: "a new transaction is reported, not confirmed", incoming: resubscribed, stored: nil,
                         notification: report("DID_RENEW", subject: "6", .renewal), expected: nil),
        ConfirmationCase(name: "a receipt confirms nothing", incoming: resubscribed, stored: resubscribed,
                         notification: nil, expected: nil),
    ]

    func testConfirmations() {
        for testCase in Self.confirmationCases {
            XCTAssertEqual(HistoryDerivation.confirmation(of: testCase.incoming, stored: testCase.stored,
                                                          by: testCase.notification),
                           testCase.expected, testCase.name)
        }
    }

    func testV2NamesJoinTheSubtype() {
        XCTAssertEqual(NotificationReport.appleName(notificationType: "DID_RENEW", subtype: "BILLING_RECOVERY"),
                       "DID_RENEW/BILLING_RECOVERY")
        XCTAssertEqual(NotificationReport.appleName(notificationType: "DID_RENEW", subtype: nil), "DID_RENEW")
        XCTAssertEqual(NotificationReport.appleName(notificationType: "DID_RENEW", subtype: ""), "DID_RENEW")
    }
}
