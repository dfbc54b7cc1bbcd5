import Entitlements
import EntitlementPorts
import EntitlementStorage
import XCTest

/// History names the notification that reported or confirmed each event: one event per
/// happening, whoever reported it first, with the Apple type filled in when a notification
/// confirms it later.
final class NotificationTypeTests: StoreTestCase {
    private func history(_ store: EntitlementStore, _ user: String) throws -> [String: HistoryEvent] {
        let events = try store.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events
        return Dictionary(uniqueKeysWithValues: events.map { ($0.eventID, $0) })
    }

    private func notification(
        _ uuid: String, _ type: String, subject: Transaction, kind: HistoryEvent.Kind?,
        events: [HistoryEvent] = []
    ) -> NotificationWrite {
        var write = Fixture.notification(uuid, transactions: [subject], events: events)
        write.report = NotificationReport(appleNotificationType: type, subjectTransactionID: subject.transactionID,
                                          kind: kind)
        return write
    }

    private let first = Fixture.subscription("1", chain: "1")
    /// Chain 1's resubscription after a lapse: not the chain's first transaction.
    private let resubscription = Fixture.subscription("8", chain: "1", purchasedAt: Fixture.purchasedAt + 90 * 86_400_000)

    func testAReceiptReportedRenewalGetsTheConfirmingNotificationsType() async throws {
        let store = try openStore()
        let renewal = Fixture.subscription("2", chain: "1", purchasedAt: Fixture.expiresAt)
        _ = try await store.write(Fixture.receipt("alice", [first, renewal]))
        let outcome = try await store.apply(notification("v2:renew", "DID_RENEW", subject: renewal, kind: .renewal))
        XCTAssertEqual(outcome.newEvents, 0, "confirmed, not added")
        let events = try history(store, "alice")
        XCTAssertEqual(events.keys.sorted(), ["purchase:1", "renewal:2"])
        XCTAssertEqual(events["renewal:2"]?.appleNotificationType, "DID_RENEW")
        XCTAssertEqual(events["renewal:2"]?.source, .receipt, "the source stays who reported it first")
        XCTAssertEqual(events["renewal:2"]?.kind, .renewal)
        XCTAssertEqual(events["purchase:1"]?.appleNotificationType, "", "not the notification's subject")
        await store.close()
    }

    func testAResubscriptionIsAPurchaseWhicheverArrivesFirst() async throws {
        let store = try openStore()
        // The receipt first: recorded as a renewal, then the notification makes it a purchase.
        _ = try await store.write(Fixture.receipt("alice", [first, resubscription]))
        XCTAssertEqual(try history(store, "alice")["renewal:8"]?.kind, .renewal)
        _ = try await store.apply(notification("v2:resub", "SUBSCRIBED/RESUBSCRIBE", subject: resubscription,
                                               kind: .purchase))
        var events = try history(store, "alice")
        XCTAssertEqual(events.count, 2, "one event per happening")
        XCTAssertEqual(events["renewal:8"]?.kind, .purchase)
        XCTAssertEqual(events["renewal:8"]?.appleNotificationType, "SUBSCRIBED/RESUBSCRIBE")
        XCTAssertEqual(events["renewal:8"]?.source, .receipt)

        // The notification first, for a chain nobody owns yet: a purchase from the start, and
        // still one, with its type, once a receipt binds the chain.
        let bobFirst = Fixture.subscription("20", chain: "20")
        let bobResubscription = Fixture.subscription("28", chain: "20", purchasedAt: resubscription.purchaseDateMs)
        _ = try await store.apply(notification("v2:resub-bob", "SUBSCRIBED/RESUBSCRIBE", subject: bobResubscription,
                                               kind: .purchase))
        _ = try await store.write(Fixture.receipt("bob", [bobFirst, bobResubscription]))
        events = try history(store, "bob")
        XCTAssertEqual(events.keys.sorted(), ["purchase:20", "purchase:28"])
        XCTAssertEqual(events["purchase:28"]?.appleNotificationType, "SUBSCRIBED/RESUBSCRIBE")
        XCTAssertEqual(events["purchase:28"]?.source, .notificationV2)
        XCTAssertEqual(events["purchase:20"]?.appleNotificationType, "")
        await store.close()
    }

    func testAConfirmationWhileTheChainHasNoOwnerIsKeptWithTheEvent() async throws {
        let store = try openStore()
        let renewal = Fixture.subscription("32", chain: "30", purchasedAt: Fixture.expiresAt)
        // Another notification reported the renewal first (auto-renew turned off, carrying it).
        _ = try await store.apply(notification("v2:off", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                                               subject: renewal, kind: .autoRenewDisabled))
        _ = try await store.apply(notification("v2:renew", "DID_RENEW", subject: renewal, kind: .renewal))
        _ = try await store.write(Fixture.receipt("carol", [Fixture.subscription("30", chain: "30"), renewal]))
        let events = try history(store, "carol")
        XCTAssertEqual(events["renewal:32"]?.appleNotificationType, "DID_RENEW",
                       "the notification about the renewal names it, over one that only carried it")
        XCTAssertEqual(events["renewal:32"]?.source, .notificationV2)
        await store.close()
    }

    func testANotificationAboutSomethingElseLeavesTheEventAlone() async throws {
        let store = try openStore()
        let renewal = Fixture.subscription("2", chain: "1", purchasedAt: Fixture.expiresAt)
        _ = try await store.write(Fixture.receipt("alice", [first, renewal]))
        let off = Fixture.event("v2:off", .autoRenewDisabled, chain: "1", at: Fixture.expiresAt + 1,
                                type: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        _ = try await store.apply(notification("v2:off", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                                               subject: renewal, kind: .autoRenewDisabled, events: [off]))
        let events = try history(store, "alice")
        XCTAssertEqual(events["renewal:2"]?.appleNotificationType, "")
        XCTAssertEqual(events["v2:off"]?.appleNotificationType, "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        await store.close()
    }

    func testARefundNotificationNamesTheRefundAtItsDateOnly() async throws {
        let store = try openStore()
        let firstRefundAt = Fixture.purchasedAt + 5_000
        let secondRefundAt = Fixture.purchasedAt + 50_000
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: firstRefundAt)]))
        _ = try await store.apply(Fixture.notification("v2:reversed", signedAt: firstRefundAt + 10_000,
                                                       reversedRefunds: ["1"]))
        let refundedAgain = Fixture.subscription("1", chain: "1", cancelledAt: secondRefundAt)
        _ = try await store.write(Fixture.receipt("alice", [refundedAgain]))
        XCTAssertEqual(try history(store, "alice").keys.sorted(), ["purchase:1", "refund:1", "refund:1:\(secondRefundAt)"])

        let refund = notification("v2:refund", "REFUND", subject: refundedAgain, kind: .refund)
        let outcome = try await store.apply(refund)
        XCTAssertEqual(outcome.newEvents, 0)
        let events = try history(store, "alice")
        XCTAssertEqual(events["refund:1:\(secondRefundAt)"]?.appleNotificationType, "REFUND")
        XCTAssertEqual(events["refund:1"]?.appleNotificationType, "", "the reversed refund was another happening")
        XCTAssertEqual(events["purchase:1"]?.appleNotificationType, "")
        let replay = try await store.apply(refund)
        XCTAssertTrue(replay.duplicate, "a redelivery changes nothing")
        await store.close()
    }
}
