import EntitlementPorts
import Entitlements
import SQLiteStore
import StorageCore
import TestSupport
import XCTest

/// What only the SQLite store promises beyond the repository contract (which
/// Tests/EntitlementRepositoryContractTests checks): group commit and durability across a reopen.
final class DurabilityTests: StoreTestCase {
    private let purchasedAt: Int64 = 1_700_000_000_000
    private var now: Int64 { purchasedAt + 86_400_000 }

    private func historyIDs(_ store: EntitlementStore, _ user: String) throws -> [String] {
        try store.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events.map(\.eventID)
    }

    private static func event(_ id: String, _ kind: HistoryEvent.Kind, chain: String, at occurredAtMs: Int64)
        -> HistoryEvent {
        HistoryEvent(eventID: id, kind: kind, occurredAtMs: occurredAtMs, productID: "com.example.monthly",
                     transactionID: chain, originalTransactionID: chain, environment: .sandbox,
                     source: .notificationV2, appleNotificationType: "DID_CHANGE_RENEWAL_STATUS")
    }

    private static func renewal(chain: String, signedAt: Int64) -> RenewalInfo {
        RenewalInfo(originalTransactionID: chain, autoRenewStatus: true, signedDateMs: signedAt)
    }

    func testABurstOfConcurrentNotificationsIsGroupCommittedAndAllApplied() async throws {
        let store = try openStore(cacheCapacity: 128)
        for user in 0..<50 {
            _ = try await store.write(
                Fixture.receipt("user-\(user)", [Fixture.subscription("c\(user)", chain: "c\(user)")]))
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
                        renewals: [Self.renewal(chain: chain, signedAt: Int64(index))],
                        events: [Self.event("v2:\(index)", .renewal, chain: chain, at: Int64(index))]))
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
        let refundedAt = purchasedAt + 5_000
        _ = try await store.apply(Fixture.notification(
            "v2:orphan", transactions: [Fixture.subscription("5", chain: "5")],
            events: [Self.event("v2:orphan", .autoRenewEnabled, chain: "5", at: now)]))
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
        XCTAssertEqual(EntitlementRules.entitlements(for: facts, at: .at(now), catalog: .empty).first?.state, .active)
        XCTAssertEqual(try historyIDs(store, "alice"), ["v2:orphan", "refund:5", "purchase:5"])
        await store.close()
    }
}
