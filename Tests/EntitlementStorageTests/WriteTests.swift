import Entitlements
import EntitlementPorts
import EntitlementStorage
import XCTest

final class WriteTests: StoreTestCase {
    func testTheSameTransactionTwiceIsStoredOnce() async throws {
        let store = try openStore()
        let first = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        XCTAssertEqual(first, WriteOutcome(newTransactions: 1, newEvents: 1, alreadyProcessed: false))
        let second = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1"),
                                                              Fixture.subscription("2", chain: "1")]))
        XCTAssertEqual(second, WriteOutcome(newTransactions: 1, newEvents: 1, alreadyProcessed: false))
        let duplicateInOneWrite = try await store.write(
            Fixture.receipt("alice", [Fixture.subscription("3", chain: "1"), Fixture.subscription("3", chain: "1")]))
        XCTAssertEqual(duplicateInOneWrite.newTransactions, 1)
        XCTAssertEqual(try store.facts(userID: "alice").transactions.count, 3)
        await store.close()
    }

    func testAReplayedSourceAddsNothing() async throws {
        let store = try openStore()
        let write = Fixture.receipt("alice", [Fixture.subscription("1", chain: "1"), Fixture.subscription("2", chain: "1")],
                            sourceID: "receipt-hash-1")
        let first = try await store.write(write)
        XCTAssertEqual(first, WriteOutcome(newTransactions: 2, newEvents: 2, alreadyProcessed: false))
        let replay = try await store.write(write)
        XCTAssertEqual(replay, WriteOutcome(newTransactions: 0, newEvents: 0, alreadyProcessed: true))

        let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        // Both transactions share a purchase date: the tie is broken by event id, descending.
        XCTAssertEqual(history.events.map(\.eventID), ["renewal:2", "purchase:1"])
        await store.close()
    }

    func testARefundBecomesAnEventOnceAndIsNeverUndone() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        let refunded = Fixture.subscription("1", chain: "1", cancelledAt: 1_700_000_500_000)
        let refund = try await store.write(Fixture.receipt("alice", [refunded]))
        XCTAssertEqual(refund, WriteOutcome(newTransactions: 0, newEvents: 1, alreadyProcessed: false))
        let lateCopyWithoutRefund = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        XCTAssertEqual(lateCopyWithoutRefund.newEvents, 0)
        XCTAssertEqual(try store.facts(userID: "alice").transactions.first?.cancellationDateMs,
                       1_700_000_500_000)

        let consumable = Transaction(transactionID: "9", originalTransactionID: "9",
                                     productID: "com.example.coins", purchaseDateMs: 50,
                                     cancellationDateMs: 60, declaredProductType: .consumable)
        let both = try await store.write(Fixture.receipt("alice", [consumable]))
        XCTAssertEqual(both, WriteOutcome(newTransactions: 1, newEvents: 2, alreadyProcessed: false))
        let kinds = try store.history(userID: "alice", productID: "com.example.coins", pageSize: 10,
                                      pageToken: nil).events.map(\.kind)
        XCTAssertEqual(kinds, [.refund, .purchase])
        await store.close()
    }

    func testRenewalInfoKeepsTheNewestBySignedDate() async throws {
        let store = try openStore()
        func renewal(_ signed: Int64, autoRenew: Bool) -> RenewalInfo {
            RenewalInfo(originalTransactionID: "1", autoRenewStatus: autoRenew, signedDateMs: signed)
        }
        let chain = [Fixture.subscription("1", chain: "1")]
        _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(200, autoRenew: false)]))
        _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(100, autoRenew: true)]))
        XCTAssertEqual(try store.facts(userID: "alice").renewalInfos["1"], renewal(200, autoRenew: false))
        _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(300, autoRenew: true)]))
        XCTAssertEqual(try store.facts(userID: "alice").renewalInfos["1"], renewal(300, autoRenew: true))
        await store.close()
    }

    func testAReadAfterAnAcknowledgedWriteSeesIt() async throws {
        let store = try openStore()
        XCTAssertEqual(try store.facts(userID: "alice"), UserFacts(), "unknown user: empty, now cached")
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1"])
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1"], "a cache hit")
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("2", chain: "1")]))
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1", "2"])
        await store.close()
    }

    func testTenThousandConcurrentWritesAreAllAcknowledgedAndPresent() async throws {
        // A small cache forces evictions and misses racing the writer's invalidations.
        let store = try openStore(cacheCapacity: 128)
        let users = 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10_000 {
                group.addTask {
                    let user = "user-\(index % users)"
                    let id = "\(index)"
                    let outcome = try await store.write(
                        Fixture.receipt(user, [Fixture.subscription(id, chain: id)]))
                    XCTAssertEqual(outcome.newTransactions, 1)
                    let facts = try store.facts(userID: user)
                    XCTAssertTrue(facts.transactions.contains { $0.transactionID == id },
                                  "read after acknowledged write \(id) missed it")
                }
            }
            try await group.waitForAll()
        }
        var total = 0
        for user in 0..<users {
            total += try store.facts(userID: "user-\(user)").transactions.count
        }
        XCTAssertEqual(total, 10_000)
        await store.close()
    }

    func testSeedLoadsManyWritesAndEmptiesTheCache() async throws {
        let store = try openStore()
        XCTAssertEqual(try store.facts(userID: "user-1"), UserFacts())
        let writes = (0..<3_000).map { index in
            Fixture.receipt("user-\(index % 1_000)", [Fixture.subscription("\(index)", chain: "\(index)")])
        }
        try await store.seed(writes)
        XCTAssertEqual(transactionIDs(try store.facts(userID: "user-1")), ["1", "1001", "2001"])
        await store.close()
    }
}
