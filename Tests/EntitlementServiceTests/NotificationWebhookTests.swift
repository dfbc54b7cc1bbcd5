@testable import EntitlementService
import HTTPCore
import ServiceRuntime
import Testing

/// The webhook edge: the one mapping from the ingestor's decisions to what Apple sees (HTTP
/// status and body) and to the labels of entitlementd_notifications_total.
struct NotificationWebhookTests {
    static let table: [(NotificationDisposition, status: Int, outcome: String)] = [
        (.accepted(owners: 2, newTransactions: 1), 200, "applied"),
        (.orphaned, 200, "orphan"),
        (.duplicate, 200, "duplicate"),
        (.test, 200, "test"),
        (.rejected(NotificationRejection(.tooLarge, "body over 10 bytes")), 413, "rejected"),
        (.rejected(NotificationRejection(.malformed, "not a V1 or V2 notification")), 400, "rejected"),
        (.rejected(NotificationRejection(.unauthenticated, "password does not match")), 401, "rejected"),
        (.rejected(NotificationRejection(.otherBundle, "bid 'x' is not this service's bundle")), 403, "rejected"),
        (.rejected(NotificationRejection(.unstorable, "notification cannot be stored")), 400, "rejected"),
        (.retryLater, 503, "failed"),
        (.failed, 500, "failed"),
    ]

    @Test(arguments: table)
    func eachDecisionHasOneStatusAndOneOutcomeLabel(_ disposition: NotificationDisposition, status: Int,
                                                     outcome: String) {
        #expect(NotificationWebhook.status(of: disposition) == status)
        let result = IngestedNotification(version: .v2, notificationType: "DID_RENEW", notificationID: "v2:x",
                                          disposition: disposition)
        #expect(NotificationWebhook.labels(of: result) == .init(version: "v2", type: "DID_RENEW", outcome: outcome))
    }

    @Test func everyRejectionReasonIsInTheTable() {
        let covered = Self.table.compactMap { row -> NotificationRejection.Reason? in
            if case .rejected(let rejection) = row.0 { return rejection.reason }
            return nil
        }
        #expect(Set(covered.map { "\($0)" }) == Set(NotificationRejection.Reason.allCases.map { "\($0)" }))
    }

    @Test func acceptedBodiesSayOkAndRefusalsSayWhy() {
        let ok = NotificationWebhook.answer(to: .duplicate)
        #expect(ok.status == 200 && ok.body == Array("ok\n".utf8))
        let wrongPassword = NotificationRejection(.unauthenticated, "password does not match")
        let refused = NotificationWebhook.answer(to: .rejected(wrongPassword))
        #expect(refused.status == 401 && refused.body == Array("password does not match\n".utf8))
        let later = NotificationWebhook.answer(to: .retryLater)
        #expect(later.status == 503 && later.body == Array("storage is unavailable; Apple will retry\n".utf8),
                "a short sentence: the store's cause stays in the log")
    }

    @Test func unauthenticatedNotificationsAreCountedAsUnverified() {
        let result = IngestedNotification(version: .v1, notificationID: "v1:ab",
                                          disposition: .rejected(NotificationRejection(.unauthenticated, "no")))
        #expect(NotificationWebhook.labels(of: result) == .init(version: "v1", type: "unverified", outcome: "rejected"))
        let tooLarge = IngestedNotification(version: .unknown, notificationID: "-",
                                            disposition: .rejected(NotificationRejection(.tooLarge, "big")))
        #expect(NotificationWebhook.labels(of: tooLarge).version == "unknown")
    }

    @Test func aPostedBodyIsAnsweredCountedAndLoggedOnce() async throws {
        let harness = try IngestorHarness()
        let lines = LogRecorder()
        let labels = LogRecorder()
        let webhook = NotificationWebhook(
            ingestor: harness.ingestor, logger: Logger(minimumLevel: .info, sink: lines.sink),
            observe: { [sink = labels.sink] in sink("\($0.version) \($0.type) \($0.outcome)") })
        let response = await webhook.handle(try harness.notifications.v2("uuid-test", "TEST"))
        #expect(response.status == 200)
        #expect(labels.recorded == ["v2 TEST test"])
        #expect(lines.recorded.count == 1 && lines.recorded[0].contains("status=200"))
    }
}

extension NotificationDisposition: CustomTestStringConvertible {
    public var testDescription: String { "\(self)" }
}
