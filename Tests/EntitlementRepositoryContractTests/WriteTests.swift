import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// Writing facts: idempotency by transaction and by source, refunds that stay, the newest
/// renewal info, and every acknowledged write visible to the next read.
struct WriteTests {
    @Test(arguments: Backend.allCases)
    func theSameTransactionTwiceIsStoredOnce(backend: Backend) async throws {
        try await backend.withRepository { store in
            let first = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(first.tallies == WriteOutcome(newTransactions: 1, newEvents: 1, alreadyProcessed: false))
            let second = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1"),
                                                                  Fixture.subscription("2", chain: "1")]))
            #expect(second.tallies == WriteOutcome(newTransactions: 1, newEvents: 1, alreadyProcessed: false))
            let duplicateInOneWrite = try await store.write(
                Fixture.receipt(
                    "alice", [Fixture.subscription("3", chain: "1"), Fixture.subscription("3", chain: "1")]))
            #expect(duplicateInOneWrite.newTransactions == 1)
            #expect(try store.facts(userID: "alice").transactions.count == 3)
        }
    }

    @Test(arguments: Backend.allCases)
    func aReplayedSourceAddsNothing(backend: Backend) async throws {
        try await backend.withRepository { store in
            let write = Fixture.receipt(
                "alice", [Fixture.subscription("1", chain: "1"), Fixture.subscription("2", chain: "1")],
                sourceID: "receipt-hash-1")
            let first = try await store.write(write)
            #expect(first.tallies == WriteOutcome(newTransactions: 2, newEvents: 2, alreadyProcessed: false))
            let replay = try await store.write(write)
            #expect(replay.tallies == WriteOutcome(newTransactions: 0, newEvents: 0, alreadyProcessed: true))

            let history = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            // Both transactions share a purchase date: the tie is broken by event id, descending.
            #expect(history.events.map(\.eventID) == ["renewal:2", "purchase:1"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aRefundBecomesAnEventOnceAndIsNeverUndone(backend: Backend) async throws {
        try await backend.withRepository { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let refunded = Fixture.subscription("1", chain: "1", cancelledAt: 1_700_000_500_000)
            let refund = try await store.write(Fixture.receipt("alice", [refunded]))
            #expect(refund.tallies == WriteOutcome(newTransactions: 0, newEvents: 1, alreadyProcessed: false))
            let lateCopyWithoutRefund = try await store.write(
                Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(lateCopyWithoutRefund.newEvents == 0)
            #expect(try store.facts(userID: "alice").transactions.first?.cancellationDateMs == 1_700_000_500_000)

            let consumable = Transaction(transactionID: "9", originalTransactionID: "9",
                                         productID: "com.example.coins", purchaseDateMs: 50,
                                         cancellationDateMs: 60, declaredProductType: .consumable)
            let both = try await store.write(Fixture.receipt("alice", [consumable]))
            #expect(both.tallies == WriteOutcome(newTransactions: 1, newEvents: 2, alreadyProcessed: false))
            let kinds = try store.history(userID: "alice", productID: "com.example.coins", pageSize: 10,
                                          pageToken: nil).events.map(\.kind)
            #expect(kinds == [.refund, .purchase])
        }
    }

    @Test(arguments: Backend.allCases)
    func renewalInfoKeepsTheNewestBySignedDate(backend: Backend) async throws {
        try await backend.withRepository { store in
            func renewal(_ signed: Int64, autoRenew: Bool) -> RenewalInfo {
                RenewalInfo(originalTransactionID: "1", autoRenewStatus: autoRenew, signedDateMs: signed)
            }
            let chain = [Fixture.subscription("1", chain: "1")]
            _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(200, autoRenew: false)]))
            _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(100, autoRenew: true)]))
            #expect(try store.facts(userID: "alice").renewalInfos["1"] == renewal(200, autoRenew: false))
            _ = try await store.write(Fixture.receipt("alice", chain, renewals: [renewal(300, autoRenew: true)]))
            #expect(try store.facts(userID: "alice").renewalInfos["1"] == renewal(300, autoRenew: true))
        }
    }

    @Test(arguments: Backend.allCases)
    func aReadAfterAnAcknowledgedWriteSeesIt(backend: Backend) async throws {
        try await backend.withRepository { store in
            #expect(try store.facts(userID: "alice") == UserFacts(), "unknown user: empty, now cached")
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["1"])
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["1"], "a cache hit")
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("2", chain: "1")]))
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["1", "2"])
        }
    }

    @Test(arguments: Backend.allCases)
    func tenThousandConcurrentWritesAreAllAcknowledgedAndPresent(backend: Backend) async throws {
        // A small cache forces evictions and misses racing the writer's invalidations.
        try await backend.withRepository { store in
            let users = 300
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10_000 {
                    group.addTask {
                        let user = "user-\(index % users)"
                        let id = "\(index)"
                        let outcome = try await store.write(
                            Fixture.receipt(user, [Fixture.subscription(id, chain: id)]))
                        #expect(outcome.newTransactions == 1)
                        let facts = try store.facts(userID: user)
                        #expect(
                            facts.transactions.contains { $0.transactionID == id },
                            "read after acknowledged write \(id) missed it")
                    }
                }
                try await group.waitForAll()
            }
            var total = 0
            for user in 0..<users {
                total += try store.facts(userID: "user-\(user)").transactions.count
            }
            #expect(total == 10_000)
        }
    }
}
