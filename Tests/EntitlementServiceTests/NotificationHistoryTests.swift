import EntitlementPorts
@testable import EntitlementService
import Entitlements
import Testing

/// What the ingestor records for the notifications that report a transaction's cancellation:
/// an upgrade is one PRODUCT_CHANGE and a Family Sharing revocation one REVOKE, derived from
/// the transaction so that a receipt reporting the same happening names the same event.
struct NotificationHistoryTests {
    private static let upgradedAt = Harness.now - 3_600_000
    private let basic = AppleNotifications.subscription("200", chain: "200")

    private var upgraded: Transaction {
        var transaction = basic
        transaction.isUpgraded = true
        transaction.cancellationDateMs = Self.upgradedAt
        return transaction
    }

    private var premium: Transaction {
        var transaction = AppleNotifications.subscription("201", chain: "200")
        transaction.productID = "com.example.premium"
        transaction.purchaseDateMs = Self.upgradedAt
        return transaction
    }

    private func summary(_ events: [HistoryEvent]) -> [String] {
        events.map { "\($0.eventID) \($0.kind.rawValue) '\($0.appleNotificationType)'" }.sorted()
    }

    @Test func aV1CancelOfAnUpgradedPlanIsItsProductChangeAlone() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [basic])
        let body = AppleNotifications.v1("CANCEL", transactions: [upgraded, premium])
        #expect(await harness.status(body) == 200)
        #expect(summary(try harness.history("alice")) == [
            "product_change:200 product_change 'CANCEL'", "purchase:200 purchase ''", "renewal:201 renewal 'CANCEL'",
        ])
    }

    @Test func aV2UpgradeIsRecordedAgainstThePlanItReplaced() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [basic])
        let body = try harness.notifications.v2("uuid-up", "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE",
                                                transaction: premium)
        #expect(await harness.status(body) == 200)
        let type = "DID_CHANGE_RENEWAL_PREF/UPGRADE"
        #expect(summary(try harness.history("alice")) == [
            "product_change:200 product_change '\(type)'", "purchase:200 purchase ''", "renewal:201 renewal '\(type)'",
        ])
        _ = try await harness.receipt("alice", [upgraded, premium])
        #expect(try harness.history("alice").count == 3, "the receipt's view of the upgrade is the same event")
    }

    @Test func aV2DowngradeIsStillItsOwnEvent() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [basic])
        let body = try harness.notifications.v2("uuid-down", "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE",
                                                transaction: basic)
        #expect(await harness.status(body) == 200)
        #expect(summary(try harness.history("alice")) == [
            "purchase:200 purchase ''", "v2:uuid-down product_change 'DID_CHANGE_RENEWAL_PREF/DOWNGRADE'",
        ])
    }

    @Test func aV2RevokeIsOneRevokeEvent() async throws {
        let harness = try IngestorHarness()
        _ = try await harness.receipt("alice", [basic])
        var revoked = AppleNotifications.subscription("200", chain: "200", cancelledAt: Harness.now - 60_000)
        revoked.inAppOwnershipType = "FAMILY_SHARED"
        let body = try harness.notifications.v2("uuid-revoke", "REVOKE", transaction: revoked)
        #expect(await harness.status(body) == 200)
        #expect(summary(try harness.history("alice")) == ["purchase:200 purchase ''", "revoke:200 revoke 'REVOKE'"])
    }
}
