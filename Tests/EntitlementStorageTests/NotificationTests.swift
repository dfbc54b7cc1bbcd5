import Entitlements
import EntitlementPorts
import EntitlementStorage
import XCTest

final class NotificationTests: StoreTestCase {
    private let now = Fixture.purchasedAt + 86_400_000

    private func historyIDs(_ store: EntitlementStore, _ user: String) throws -> [String] {
        try store.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events.map(\.eventID)
    }

    func testADuplicateSourceIDAddsNothing() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        let notification = Fixture.notification(
            "v2:uuid-1", transactions: [Fixture.subscription("2", chain: "1")],
            events: [Fixture.event("v2:uuid-1", .autoRenewDisabled, chain: "1", at: now)])
        let first = try await store.apply(notification)
        XCTAssertEqual(first, NotificationOutcome(duplicate: false, ownerUserIDs: ["alice"],
                                                  newTransactions: 1, newEvents: 2))
        let replay = try await store.apply(notification)
        XCTAssertEqual(replay, NotificationOutcome(duplicate: true, ownerUserIDs: [], newTransactions: 0,
                                                   newEvents: 0))
        XCTAssertEqual(try historyIDs(store, "alice"), ["v2:uuid-1", "renewal:2", "purchase:1"])
        XCTAssertEqual(try store.facts(userID: "alice").transactions.count, 2)
        await store.close()
    }

    func testANotificationForAnOwnedChainUpdatesFactsAndHistory() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")],
                                                  renewals: [Fixture.renewal(chain: "1", signedAt: 10)]))
        XCTAssertEqual(try store.facts(userID: "alice").renewalInfos["1"]?.autoRenewStatus, true,
                       "now cached")
        let renewal = Fixture.renewal(chain: "1", signedAt: Fixture.purchasedAt + 1_000, autoRenew: false)
        let outcome = try await store.apply(Fixture.notification(
            "v2:off", renewals: [renewal],
            events: [Fixture.event("v2:off", .autoRenewDisabled, chain: "1", at: now)]))
        XCTAssertEqual(outcome, NotificationOutcome(ownerUserIDs: ["alice"], newEvents: 1))
        let facts = try store.facts(userID: "alice")
        XCTAssertEqual(facts.renewalInfos["1"], renewal, "alice's cached facts were invalidated")
        let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        XCTAssertEqual(history.events.map(\.kind), [.autoRenewDisabled, .purchase])
        XCTAssertEqual(history.events.first?.appleNotificationType, "DID_CHANGE_RENEWAL_STATUS")
        await store.close()
    }

    func testAnOrphanIsKeptThenBoundByAReceiptEvenUnderReject() async throws {
        let store = try openStore(policy: .reject)
        let first = Fixture.subscription("7", chain: "7")
        let renewal = Fixture.renewal(chain: "7", signedAt: Fixture.purchasedAt + 1_000, autoRenew: false)
        let orphan = try await store.apply(Fixture.notification(
            "v2:sub", transactions: [first], renewals: [renewal],
            events: [Fixture.event("v2:sub", .autoRenewDisabled, chain: "7", at: now)]))
        XCTAssertEqual(orphan, NotificationOutcome(ownerUserIDs: [], newTransactions: 1, newEvents: 2),
                       "kept: no user owns chain 7 yet")
        XCTAssertEqual(try store.facts(userID: "alice"), UserFacts(), "cached as empty")
        XCTAssertEqual(try historyIDs(store, "alice"), [])

        // The receipt binds the chain: what the notification stored becomes alice's.
        let bound = try await store.write(Fixture.receipt("alice", [first]))
        XCTAssertEqual(bound, WriteOutcome(newTransactions: 0, newEvents: 2, alreadyProcessed: false))
        XCTAssertEqual(try store.facts(userID: "alice"), UserFacts(transactions: [first], renewalInfos: ["7": renewal]))
        let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        XCTAssertEqual(history.events.map(\.eventID), ["v2:sub", "purchase:7"])
        XCTAssertFalse(history.events.contains { $0.kind == .ownershipTransfer })

        // From now on the chain's notifications are alice's, and another user is refused.
        let later = try await store.apply(Fixture.notification(
            "v2:renew", transactions: [Fixture.subscription("8", chain: "7")]))
        XCTAssertEqual(later.ownerUserIDs, ["alice"])
        XCTAssertEqual(try historyIDs(store, "alice"), ["v2:sub", "renewal:8", "purchase:7"])
        await assertStoreError(.ownershipConflict) {
            _ = try await store.write(Fixture.receipt("bob", [first]))
        }
        await store.close()
    }

    func testALateOlderRenewalInfoDoesNotMoveStateBackwards() async throws {
        let store = try openStore()
        let expiredAt = Fixture.expiresAt + 86_400_000
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        let retrying = Fixture.renewal(chain: "1", signedAt: Fixture.expiresAt + 3_600_000, billingRetry: true)
        let stale = Fixture.renewal(chain: "1", signedAt: Fixture.expiresAt - 86_400_000)
        _ = try await store.apply(Fixture.notification("v2:retry", signedAt: retrying.signedDateMs,
                                                       renewals: [retrying]))
        XCTAssertEqual(Fixture.state(of: "1", in: try store.facts(userID: "alice"), at: expiredAt), .billingRetry)
        let late = try await store.apply(Fixture.notification("v2:stale", signedAt: stale.signedDateMs,
                                                              renewals: [stale]))
        XCTAssertEqual(late.ownerUserIDs, ["alice"])
        let facts = try store.facts(userID: "alice")
        XCTAssertEqual(facts.renewalInfos["1"], retrying)
        XCTAssertEqual(Fixture.state(of: "1", in: facts, at: expiredAt), .billingRetry)
        await store.close()
    }

    func testABurstOfConcurrentNotificationsIsGroupCommittedAndAllApplied() async throws {
        let store = try openStore(cacheCapacity: 128)
        for user in 0..<50 {
            _ = try await store.write(Fixture.receipt("user-\(user)", [Fixture.subscription("c\(user)", chain: "c\(user)")]))
        }
        let before = store.statistics
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
                    XCTAssertEqual(outcome.newTransactions, 1)
                    XCTAssertEqual(outcome.newEvents, 2)
                    if index % 2 == 0 {
                        XCTAssertEqual(outcome.ownerUserIDs, ["user-\(index % 50)"])
                        let facts = try store.facts(userID: "user-\(index % 50)")
                        XCTAssertTrue(facts.transactions.contains { $0.transactionID == "t\(index)" },
                                      "read after acknowledged notification \(index) missed it")
                    } else {
                        XCTAssertEqual(outcome.ownerUserIDs, [])
                    }
                }
            }
            try await group.waitForAll()
        }
        let after = store.statistics
        XCTAssertEqual(after.appliedWrites - before.appliedWrites, count)
        XCTAssertLessThan(after.commits - before.commits, count, "notifications share commits")
        var owned = 0
        for user in 0..<50 {
            owned += try store.facts(userID: "user-\(user)").transactions.count
        }
        XCTAssertEqual(owned, 50 + count / 2)
        await store.close()
    }

    func testReopenKeepsOrphansAndReversals() async throws {
        var store = try openStore()
        let refundedAt = Fixture.purchasedAt + 5_000
        _ = try await store.apply(Fixture.notification(
            "v2:orphan", transactions: [Fixture.subscription("5", chain: "5")],
            events: [Fixture.event("v2:orphan", .autoRenewEnabled, chain: "5", at: now)]))
        _ = try await store.apply(Fixture.notification(
            "v2:reversed", signedAt: refundedAt + 10_000, reversedRefunds: ["5"]))
        await store.close()

        store = try openStore()
        let replay = try await store.apply(Fixture.notification("v2:orphan"))
        XCTAssertTrue(replay.duplicate, "processed notifications survive a reopen")
        let lateRefund = Fixture.subscription("5", chain: "5", cancelledAt: refundedAt)
        _ = try await store.write(Fixture.receipt("alice", [lateRefund]))
        let facts = try store.facts(userID: "alice")
        XCTAssertEqual(facts.transactions.map(\.cancellationDateMs), [nil], "the reversal survived")
        XCTAssertEqual(Fixture.state(of: "5", in: facts, at: now), .active)
        XCTAssertEqual(try historyIDs(store, "alice"), ["v2:orphan", "refund:5", "purchase:5"])
        await store.close()
    }
}
