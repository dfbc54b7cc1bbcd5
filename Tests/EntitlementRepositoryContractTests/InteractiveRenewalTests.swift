import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// V1 INTERACTIVE_RENEWAL (an upgrade, or a resubscription, the customer made in the app) names
/// the events of what it reports, even when a receipt reported them first: reported as
/// `NotificationV1.historyReport` does (an upgrade like V2's UPGRADE, else a renewal).
struct InteractiveRenewalTests {
    private let day: Int64 = 86_400_000

    @Test(arguments: Backend.allCases)
    func anUpgradeAReceiptReportedFirstGetsTheType(backend: Backend) async throws {
        try await backend.withRepository { store in
            var old = Fixture.subscription("1", chain: "1")
            let upgradedAt = Fixture.purchasedAt + 3 * day
            old.cancellationDateMs = upgradedAt
            old.isUpgraded = true
            let new = Fixture.subscription("2", chain: "1", product: "com.example.pro", purchasedAt: upgradedAt)
            _ = try await store.write(Fixture.receipt("alice", [old, new]))
            let report = NotificationReport(appleNotificationType: "INTERACTIVE_RENEWAL", subjectTransactionID: "2",
                                            kind: .productChange, productChange: .upgrade)
            _ = try await store.apply(NotificationWrite(
                source: .notificationV1, sourceID: "v1:interactive", signedDateMs: upgradedAt + 1,
                transactions: [old, new], report: report))
            let events = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            let typed = events.map { "\($0.eventID)=\($0.appleNotificationType)" }
            #expect(typed == ["renewal:2=INTERACTIVE_RENEWAL", "product_change:1=INTERACTIVE_RENEWAL", "purchase:1="],
                    "\(typed)")
        }
    }

    @Test(arguments: Backend.allCases)
    func aResubscriptionAReceiptReportedFirstGetsTheType(backend: Backend) async throws {
        try await backend.withRepository { store in
            let first = Fixture.subscription("1", chain: "1")
            let again = Fixture.subscription("2", chain: "1", purchasedAt: Fixture.purchasedAt + 40 * day)
            _ = try await store.write(Fixture.receipt("alice", [first, again]))
            let report = NotificationReport(appleNotificationType: "INTERACTIVE_RENEWAL", subjectTransactionID: "2",
                                            kind: .renewal)
            _ = try await store.apply(NotificationWrite(
                source: .notificationV1, sourceID: "v1:resubscribe", signedDateMs: Fixture.purchasedAt + 40 * day,
                transactions: [first, again], report: report))
            let events = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            let typed = events.map { "\($0.eventID)=\($0.appleNotificationType)" }
            #expect(typed.contains("renewal:2=INTERACTIVE_RENEWAL"), "\(typed)")
        }
    }
}
