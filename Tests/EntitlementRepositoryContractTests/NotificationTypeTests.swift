import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// History names the notification that reported or confirmed each event: one event per
/// happening, whoever reported it first, with the Apple type filled in when a notification
/// confirms it later.
struct NotificationTypeTests {
    private func history(_ store: any EntitlementRepository, _ user: String) throws -> [String: HistoryEvent] {
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
    private let resubscription = Fixture.subscription(
        "8", chain: "1", purchasedAt: Fixture.purchasedAt + 90 * 86_400_000)

    @Test(arguments: Backend.allCases)
    func aReceiptReportedRenewalGetsTheConfirmingNotificationsType(backend: Backend) async throws {
        try await backend.withRepository { store in
            let renewal = Fixture.subscription("2", chain: "1", purchasedAt: Fixture.expiresAt)
            _ = try await store.write(Fixture.receipt("alice", [first, renewal]))
            let outcome = try await store.apply(notification("v2:renew", "DID_RENEW", subject: renewal, kind: .renewal))
            #expect(outcome.newEvents == 0, "confirmed, not added")
            let events = try history(store, "alice")
            #expect(events.keys.sorted() == ["purchase:1", "renewal:2"])
            #expect(events["renewal:2"]?.appleNotificationType == "DID_RENEW")
            #expect(events["renewal:2"]?.source == .receipt, "the source stays who reported it first")
            #expect(events["renewal:2"]?.kind == .renewal)
            #expect(events["purchase:1"]?.appleNotificationType == "", "not the notification's subject")
        }
    }

    @Test(arguments: Backend.allCases)
    func aResubscriptionIsAPurchaseWhicheverArrivesFirst(backend: Backend) async throws {
        try await backend.withRepository { store in
            // The receipt first: recorded as a renewal, then the notification makes it a purchase.
            _ = try await store.write(Fixture.receipt("alice", [first, resubscription]))
            #expect(try history(store, "alice")["renewal:8"]?.kind == .renewal)
            _ = try await store.apply(notification("v2:resub", "SUBSCRIBED/RESUBSCRIBE", subject: resubscription,
                                                   kind: .purchase))
            var events = try history(store, "alice")
            #expect(events.count == 2, "one event per happening")
            #expect(events["renewal:8"]?.kind == .purchase)
            #expect(events["renewal:8"]?.appleNotificationType == "SUBSCRIBED/RESUBSCRIBE")
            #expect(events["renewal:8"]?.source == .receipt)

            // The notification first, for a chain nobody owns yet: a purchase from the start, and
            // still one, with its type, once a receipt binds the chain.
            let bobFirst = Fixture.subscription("20", chain: "20")
            let bobResubscription = Fixture.subscription("28", chain: "20", purchasedAt: resubscription.purchaseDateMs)
            _ = try await store.apply(notification("v2:resub-bob", "SUBSCRIBED/RESUBSCRIBE", subject: bobResubscription,
                                                   kind: .purchase))
            _ = try await store.write(Fixture.receipt("bob", [bobFirst, bobResubscription]))
            events = try history(store, "bob")
            #expect(events.keys.sorted() == ["purchase:20", "purchase:28"])
            #expect(events["purchase:28"]?.appleNotificationType == "SUBSCRIBED/RESUBSCRIBE")
            #expect(events["purchase:28"]?.source == .notificationV2)
            #expect(events["purchase:20"]?.appleNotificationType == "")
        }
    }

    @Test(arguments: Backend.allCases)
    func aConfirmationWhileTheChainHasNoOwnerIsKeptWithTheEvent(backend: Backend) async throws {
        try await backend.withRepository { store in
            let renewal = Fixture.subscription("32", chain: "30", purchasedAt: Fixture.expiresAt)
            // Another notification reported the renewal first (auto-renew turned off, carrying it).
            _ = try await store.apply(notification("v2:off", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                                                   subject: renewal, kind: .autoRenewDisabled))
            _ = try await store.apply(notification("v2:renew", "DID_RENEW", subject: renewal, kind: .renewal))
            _ = try await store.write(Fixture.receipt("carol", [Fixture.subscription("30", chain: "30"), renewal]))
            let events = try history(store, "carol")
            #expect(
                events["renewal:32"]?.appleNotificationType == "DID_RENEW",
                "the notification about the renewal names it, over one that only carried it")
            #expect(events["renewal:32"]?.source == .notificationV2)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNotificationAboutSomethingElseLeavesTheEventAlone(backend: Backend) async throws {
        try await backend.withRepository { store in
            let renewal = Fixture.subscription("2", chain: "1", purchasedAt: Fixture.expiresAt)
            _ = try await store.write(Fixture.receipt("alice", [first, renewal]))
            let off = Fixture.event("v2:off", .autoRenewDisabled, chain: "1", at: Fixture.expiresAt + 1,
                                    type: "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
            _ = try await store.apply(notification("v2:off", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                                                   subject: renewal, kind: .autoRenewDisabled, events: [off]))
            let events = try history(store, "alice")
            #expect(events["renewal:2"]?.appleNotificationType == "")
            #expect(events["v2:off"]?.appleNotificationType == "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED")
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundNotificationNamesTheRefundAtItsDateOnly(backend: Backend) async throws {
        try await backend.withRepository { store in
            let firstRefundAt = Fixture.purchasedAt + 5_000
            let secondRefundAt = Fixture.purchasedAt + 50_000
            _ = try await store.write(
                Fixture.receipt("alice", [Fixture.subscription("1", chain: "1", cancelledAt: firstRefundAt)]))
            _ = try await store.apply(
                Fixture.notification(
                    "v2:reversed", signedAt: firstRefundAt + 10_000,
                    reversedRefunds: ["1"]))
            let refundedAgain = Fixture.subscription("1", chain: "1", cancelledAt: secondRefundAt)
            _ = try await store.write(Fixture.receipt("alice", [refundedAgain]))
            #expect(
                try history(store, "alice").keys.sorted() == ["purchase:1", "refund:1", "refund:1:\(secondRefundAt)"])

            let refund = notification("v2:refund", "REFUND", subject: refundedAgain, kind: .refund)
            let outcome = try await store.apply(refund)
            #expect(outcome.newEvents == 0)
            let events = try history(store, "alice")
            #expect(events["refund:1:\(secondRefundAt)"]?.appleNotificationType == "REFUND")
            #expect(events["refund:1"]?.appleNotificationType == "", "the reversed refund was another happening")
            #expect(events["purchase:1"]?.appleNotificationType == "")
            let replay = try await store.apply(refund)
            #expect(replay.duplicate, "a redelivery changes nothing")
        }
    }
}
