import Entitlements
import EntitlementPorts
import Testing
import TestSupport

/// An upgrade is one PRODUCT_CHANGE and a Family Sharing revocation one REVOKE in the stored
/// history, whichever of the receipt and the notification arrives first.
struct UpgradeAndRevocationTests {
    private static let upgradedAt = Fixture.purchasedAt + 10 * 86_400_000
    private static let upgradeType = "DID_CHANGE_RENEWAL_PREF/UPGRADE"

    private func history(_ store: any EntitlementRepository, _ user: String) throws -> [String: HistoryEvent] {
        let events = try store.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events
        return Dictionary(uniqueKeysWithValues: events.map { ($0.eventID, $0) })
    }

    /// Chain `chain`: its basic plan, the same plan upgraded on day 10, and the premium plan.
    private func upgrade(chain: String) -> (basic: Transaction, upgraded: Transaction, premium: Transaction) {
        let basic = Fixture.subscription(chain, chain: chain, product: "basic")
        var upgraded = basic
        upgraded.isUpgraded = true
        upgraded.cancellationDateMs = Self.upgradedAt
        let premium = Fixture.subscription(chain + "3", chain: chain, product: "premium", purchasedAt: Self.upgradedAt)
        return (basic, upgraded, premium)
    }

    /// What the ingestor hands over for DID_CHANGE_RENEWAL_PREF/UPGRADE: the new plan, and the
    /// report that says it is an upgrade (no event of its own: the store records it).
    private func upgradeNotification(_ uuid: String, newPlan: Transaction) -> NotificationWrite {
        var write = Fixture.notification(uuid, transactions: [newPlan])
        write.report = NotificationReport(appleNotificationType: Self.upgradeType,
                                          subjectTransactionID: newPlan.transactionID, kind: .productChange,
                                          productChange: .upgrade)
        return write
    }

    @Test(arguments: Backend.allCases)
    func aReceiptReportedUpgradeIsNamedByTheV2Notification(backend: Backend) async throws {
        try await backend.withRepository { store in
            let plans = upgrade(chain: "1")
            _ = try await store.write(Fixture.receipt("alice", [plans.basic]))
            _ = try await store.write(Fixture.receipt("alice", [plans.upgraded, plans.premium]))
            let outcome = try await store.apply(upgradeNotification("v2:up", newPlan: plans.premium))
            #expect(outcome.newEvents == 0, "confirmed, not added")
            let events = try history(store, "alice")
            #expect(events.keys.sorted() == ["product_change:1", "purchase:1", "renewal:13"])
            #expect(events["product_change:1"]?.kind == .productChange)
            #expect(events["product_change:1"]?.source == .receipt, "who reported it first")
            #expect(events["product_change:1"]?.appleNotificationType == Self.upgradeType)
            #expect(events["product_change:1"]?.occurredAtMs == Self.upgradedAt)
            #expect(events["renewal:13"]?.appleNotificationType == Self.upgradeType, "the new plan is named too")
        }
    }

    @Test(arguments: Backend.allCases)
    func aV2UpgradeFirstIsNotRepeatedByTheReceipt(backend: Backend) async throws {
        try await backend.withRepository { store in
            let plans = upgrade(chain: "2")
            _ = try await store.write(Fixture.receipt("bob", [plans.basic]))
            _ = try await store.apply(upgradeNotification("v2:up", newPlan: plans.premium))
            _ = try await store.write(Fixture.receipt("bob", [plans.upgraded, plans.premium]))
            let events = try history(store, "bob")
            #expect(events.keys.sorted() == ["product_change:2", "purchase:2", "renewal:23"])
            #expect(events["product_change:2"]?.source == .notificationV2)
            #expect(events["product_change:2"]?.productID == "basic", "the plan that was replaced")
            #expect(events["product_change:2"]?.occurredAtMs == Self.upgradedAt)
        }
    }

    @Test(arguments: Backend.allCases)
    func aV1CancelOfTheUpgradedPlanIsTheSameEvent(backend: Backend) async throws {
        try await backend.withRepository { store in
            let plans = upgrade(chain: "3")
            _ = try await store.write(Fixture.receipt("carol", [plans.basic, plans.premium]))
            var cancel = NotificationWrite(
                source: .notificationV1, sourceID: "v1:cancel", signedDateMs: Self.upgradedAt,
                transactions: [plans.upgraded, plans.premium])
            cancel.report = NotificationReport(
                appleNotificationType: "CANCEL", subjectTransactionID: "3",
                kind: .productChange, productChange: .upgraded)
            _ = try await store.apply(cancel)
            _ = try await store.apply(upgradeNotification("v2:up", newPlan: plans.premium))
            _ = try await store.write(Fixture.receipt("carol", [plans.upgraded, plans.premium]))
            let events = try history(store, "carol")
            #expect(events.keys.sorted() == ["product_change:3", "purchase:3", "renewal:33"])
            #expect(events["product_change:3"]?.source == .notificationV1)
            #expect(events["product_change:3"]?.appleNotificationType == Self.upgradeType, "the latest to name it")
        }
    }

    @Test(arguments: Backend.allCases)
    func anUpgradeOfAPlanNeverSeenIsJoinedByTheReceiptThatShowsIt(backend: Backend) async throws {
        try await backend.withRepository { store in
            // The service first hears of chain 4 from the upgrade: the new plan is all it knows.
            let plans = upgrade(chain: "4")
            _ = try await store.apply(upgradeNotification("v2:up", newPlan: plans.premium))
            _ = try await store.write(Fixture.receipt("dave", [plans.upgraded, plans.premium]))
            let events = try history(store, "dave")
            #expect(events.keys.sorted() == ["product_change:to:43", "purchase:4", "renewal:43"])
            #expect(events["product_change:to:43"]?.kind == .productChange)
            #expect(events["product_change:to:43"]?.productID == "premium", "the new plan, all it knew")
            #expect(events["product_change:to:43"]?.appleNotificationType == Self.upgradeType)
            #expect(events["product_change:to:43"]?.source == .notificationV2)
        }
    }

    private func revoked(_ id: String, familyShared: Bool) -> Transaction {
        var transaction = Fixture.subscription(id, chain: id, cancelledAt: Fixture.purchasedAt + 5_000)
        if familyShared { transaction.inAppOwnershipType = "FAMILY_SHARED" }
        return transaction
    }

    private func revoke(_ transaction: Transaction) -> NotificationWrite {
        var write = Fixture.notification("v2:revoke-\(transaction.transactionID)", transactions: [transaction])
        write.report = NotificationReport(appleNotificationType: "REVOKE",
                                          subjectTransactionID: transaction.transactionID, kind: .revoke)
        return write
    }

    @Test(arguments: Backend.allCases)
    func aRevocationIsOneRevokeWhicheverArrivesFirst(backend: Backend) async throws {
        try await backend.withRepository { store in
            // The receipt first: FAMILY_SHARED already says revocation; REVOKE names it.
            let shared = revoked("5", familyShared: true)
            _ = try await store.write(Fixture.receipt("erin", [shared]))
            let outcome = try await store.apply(revoke(shared))
            #expect(outcome.newEvents == 0)
            var events = try history(store, "erin")
            #expect(events.keys.sorted() == ["purchase:5", "revoke:5"])
            #expect(events["revoke:5"]?.kind == .revoke)
            #expect(events["revoke:5"]?.appleNotificationType == "REVOKE")
            #expect(events["revoke:5"]?.source == .receipt)

            // A receipt without the ownership type recorded a refund: REVOKE makes it the revocation.
            let unmarked = revoked("6", familyShared: false)
            _ = try await store.write(Fixture.receipt("erin", [unmarked]))
            _ = try await store.apply(revoke(unmarked))
            events = try history(store, "erin")
            #expect(events["refund:6"]?.kind == .revoke)
            #expect(events["refund:6"]?.appleNotificationType == "REVOKE")
            #expect(events.count == 4)

            // The notification first, for a chain nobody owns yet: one REVOKE once a receipt binds it.
            let early = revoked("7", familyShared: true)
            _ = try await store.apply(revoke(early))
            _ = try await store.write(Fixture.receipt("frank", [early]))
            events = try history(store, "frank")
            #expect(events.keys.sorted() == ["purchase:7", "revoke:7"])
            #expect(events["revoke:7"]?.source == .notificationV2)
            #expect(events["revoke:7"]?.appleNotificationType == "REVOKE")
        }
    }
}
