import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// The contract's smaller promises: what a refused notification leaves, whose idempotency key
/// is whose, ownership moving back and forth, and unknown users.
struct ContractEdgeTests {
    @Test(arguments: Backend.allCases)
    func aNotificationEventNamingNoChainIsRefusedAndLeavesNoTrace(backend: Backend) async throws {
        try await backend.withRepository { store in
            let chainless = HistoryEvent(eventID: "v2:bad", kind: .other, occurredAtMs: 1, productID: "p",
                                         transactionID: "", originalTransactionID: "", environment: .sandbox,
                                         source: .notificationV2)
            let bad = Fixture.notification("v2:bad", transactions: [Fixture.subscription("1", chain: "1")],
                                           events: [chainless])
            let error = await expectStoreError(.invalidWrite) { _ = try await store.apply(bad) }
            #expect(error?.message.contains("names no original transaction") == true)
            // Nothing was stored, not even the source id: the same notification fixed applies.
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("0", chain: "1")]))
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["0"])
            var fixed = bad
            fixed.events = []
            let outcome = try await store.apply(fixed)
            #expect(!outcome.duplicate)
            #expect(outcome.newTransactions == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func sourceIDsAreKeyedPerSource(backend: Backend) async throws {
        try await backend.withRepository { store in
            let receipt = try await store.write(
                FactsWrite(
                    userID: "alice", transactions: [Fixture.subscription("1", chain: "1")],
                    source: .receipt, sourceID: "same-id"))
            #expect(!receipt.alreadyProcessed)
            let notification = try await store.apply(Fixture.notification("same-id"))
            #expect(!notification.duplicate, "a notification is not a replay of a receipt with the same id")
            let v1 = try await store.apply(
                NotificationWrite(source: .notificationV1, sourceID: "same-id", signedDateMs: 0))
            #expect(!v1.duplicate)
            #expect(try await store.apply(Fixture.notification("same-id")).duplicate)
        }
    }

    @Test(arguments: Backend.allCases)
    func ownershipMovingBackAndForthIsRecordedEachTime(backend: Backend) async throws {
        let clock = TickingClock(startingAt: Fixture.purchasedAt)
        try await backend.withRepository(policy: .transfer, clock: clock.read) { store in
            let chain = [Fixture.subscription("1", chain: "1")]
            for user in ["alice", "bob", "alice", "bob"] {
                _ = try await store.write(Fixture.receipt(user, chain))
            }
            #expect(transactionIDs(try store.facts(userID: "bob")) == ["1"])
            #expect(try store.facts(userID: "alice") == UserFacts())
            let alice = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(alice.filter { $0.kind == .ownershipTransfer }.count == 2, "alice lost the chain twice")
            let bob = try store.history(userID: "bob", productID: nil, pageSize: 0, pageToken: nil).events
            #expect(bob.map(\.kind) == [.ownershipTransfer], "bob lost it once; the purchase is in alice's history")
        }
    }

    @Test(arguments: Backend.allCases)
    func anUnknownUserHasNoFactsAndNoHistory(backend: Backend) async throws {
        try await backend.withRepository { store in
            #expect(try store.facts(userID: "nobody") == UserFacts())
            let page = try store.history(userID: "nobody", productID: nil, pageSize: 10, pageToken: nil)
            #expect(page == HistoryPage(events: [], nextPageToken: ""))
        }
    }
}
