import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// Notifications are about chains: applied once per source id, for the chain's owner or kept
/// for the chain until a receipt binds it, never moving state backwards.
struct NotificationTests {
    private let now = Fixture.purchasedAt + 86_400_000

    @Test(arguments: Backend.allCases)
    func aDuplicateSourceIDAddsNothing(backend: Backend) async throws {
        try await backend.withRepository { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let notification = Fixture.notification(
                "v2:uuid-1", transactions: [Fixture.subscription("2", chain: "1")],
                events: [Fixture.event("v2:uuid-1", .autoRenewDisabled, chain: "1", at: now)])
            let first = try await store.apply(notification)
            #expect(first == NotificationOutcome(duplicate: false, ownerUserIDs: ["alice"],
                                                      newTransactions: 1, newEvents: 2))
            let replay = try await store.apply(notification)
            #expect(replay == NotificationOutcome(duplicate: true, ownerUserIDs: [], newTransactions: 0,
                                                       newEvents: 0))
            #expect(try historyIDs(store, "alice") == ["v2:uuid-1", "renewal:2", "purchase:1"])
            #expect(try store.facts(userID: "alice").transactions.count == 2)
        }
    }

    @Test(arguments: Backend.allCases)
    func aNotificationForAnOwnedChainUpdatesFactsAndHistory(backend: Backend) async throws {
        try await backend.withRepository { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")],
                                                      renewals: [Fixture.renewal(chain: "1", signedAt: 10)]))
            #expect(try store.facts(userID: "alice").renewalInfos["1"]?.autoRenewStatus == true, "now cached")
            let renewal = Fixture.renewal(chain: "1", signedAt: Fixture.purchasedAt + 1_000, autoRenew: false)
            let outcome = try await store.apply(Fixture.notification(
                "v2:off", renewals: [renewal],
                events: [Fixture.event("v2:off", .autoRenewDisabled, chain: "1", at: now)]))
            #expect(outcome == NotificationOutcome(ownerUserIDs: ["alice"], newEvents: 1))
            let facts = try store.facts(userID: "alice")
            #expect(facts.renewalInfos["1"] == renewal, "alice's cached facts were invalidated")
            let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            #expect(history.events.map(\.kind) == [.autoRenewDisabled, .purchase])
            #expect(history.events.first?.appleNotificationType == "DID_CHANGE_RENEWAL_STATUS")
        }
    }

    @Test(arguments: Backend.allCases)
    func anOrphanIsKeptThenBoundByAReceiptEvenUnderReject(backend: Backend) async throws {
        try await backend.withRepository(policy: .reject) { store in
            let first = Fixture.subscription("7", chain: "7")
            let renewal = Fixture.renewal(chain: "7", signedAt: Fixture.purchasedAt + 1_000, autoRenew: false)
            let orphan = try await store.apply(
                Fixture.notification(
                    "v2:sub", transactions: [first], renewals: [renewal],
                    events: [Fixture.event("v2:sub", .autoRenewDisabled, chain: "7", at: now)]))
            #expect(
                orphan == NotificationOutcome(ownerUserIDs: [], newTransactions: 1, newEvents: 2),
                "kept: no user owns chain 7 yet")
            #expect(try store.facts(userID: "alice") == UserFacts(), "cached as empty")
            #expect(try historyIDs(store, "alice") == [])

            // The receipt binds the chain: what the notification stored becomes alice's.
            let bound = try await store.write(Fixture.receipt("alice", [first]))
            #expect(bound.tallies == WriteOutcome(newTransactions: 0, newEvents: 2, alreadyProcessed: false))
            #expect(try store.facts(userID: "alice") == UserFacts(transactions: [first], renewalInfos: ["7": renewal]))
            let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            #expect(history.events.map(\.eventID) == ["v2:sub", "purchase:7"])
            #expect(!(history.events.contains { $0.kind == .ownershipTransfer }))

            // From now on the chain's notifications are alice's, and another user is refused.
            let later = try await store.apply(Fixture.notification(
                "v2:renew", transactions: [Fixture.subscription("8", chain: "7")]))
            #expect(later.ownerUserIDs == ["alice"])
            #expect(try historyIDs(store, "alice") == ["v2:sub", "renewal:8", "purchase:7"])
            await expectStoreError(.ownershipConflict) {
                _ = try await store.write(Fixture.receipt("bob", [first]))
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aLateOlderRenewalInfoDoesNotMoveStateBackwards(backend: Backend) async throws {
        try await backend.withRepository { store in
            let expiredAt = Fixture.expiresAt + 86_400_000
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let retrying = Fixture.renewal(chain: "1", signedAt: Fixture.expiresAt + 3_600_000, billingRetry: true)
            let stale = Fixture.renewal(chain: "1", signedAt: Fixture.expiresAt - 86_400_000)
            _ = try await store.apply(Fixture.notification("v2:retry", signedAt: retrying.signedDateMs,
                                                           renewals: [retrying]))
            #expect(Fixture.state(of: "1", in: try store.facts(userID: "alice"), at: expiredAt) == .billingRetry)
            let late = try await store.apply(Fixture.notification("v2:stale", signedAt: stale.signedDateMs,
                                                                  renewals: [stale]))
            #expect(late.ownerUserIDs == ["alice"])
            let facts = try store.facts(userID: "alice")
            #expect(facts.renewalInfos["1"] == retrying)
            #expect(Fixture.state(of: "1", in: facts, at: expiredAt) == .billingRetry)
        }
    }

    @Test(arguments: Backend.allCases)
    func aBurstOfConcurrentNotificationsIsAllAppliedAndReadable(backend: Backend) async throws {
        try await backend.withRepository { store in
            for user in 0..<50 {
                _ = try await store.write(
                    Fixture.receipt("user-\(user)", [Fixture.subscription("c\(user)", chain: "c\(user)")]))
            }
            let count = 1_000
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        // Even indexes renew an owned chain; odd ones create orphans.
                        let chain = index % 2 == 0 ? "c\(index % 50)" : "orphan-\(index)"
                        let outcome = try await store.apply(Fixture.notification(
                            "v2:\(index)", transactions: [Fixture.subscription("t\(index)", chain: chain)],
                            renewals: [Fixture.renewal(chain: chain, signedAt: Int64(index))],
                            events: [Fixture.event("v2:\(index)", .renewal, chain: chain, at: Int64(index))]))
                        #expect(outcome.newTransactions == 1)
                        #expect(outcome.newEvents == 2)
                        if index % 2 == 0 {
                            #expect(outcome.ownerUserIDs == ["user-\(index % 50)"])
                            let facts = try store.facts(userID: "user-\(index % 50)")
                            #expect(
                                facts.transactions.contains { $0.transactionID == "t\(index)" },
                                "read after acknowledged notification \(index) missed it")
                        } else {
                            #expect(outcome.ownerUserIDs == [])
                        }
                    }
                }
                try await group.waitForAll()
            }
            var owned = 0
            for user in 0..<50 {
                owned += try store.facts(userID: "user-\(user)").transactions.count
            }
            #expect(owned == 50 + count / 2)
        }
    }
}
