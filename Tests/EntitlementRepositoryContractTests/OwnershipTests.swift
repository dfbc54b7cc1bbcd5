import EntitlementPorts
import Entitlements
import Testing
import TestSupport

/// A chain belongs to one user: a second user's receipt moves it (the previous owner's history
/// says so) or, under the reject policy, fails the whole write and changes nothing.
struct OwnershipTests {
    @Test(arguments: Backend.allCases)
    func transferMovesTheChainAndTellsThePreviousOwner(backend: Backend) async throws {
        try await backend.withRepository(policy: .transfer) { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            #expect(transactionIDs(try store.facts(userID: "alice")) == ["1"], "cached for alice")

            let outcome = try await store.write(Fixture.receipt("bob", [Fixture.subscription("1", chain: "1"),
                                                                Fixture.subscription("2", chain: "1")]))
            #expect(outcome.newTransactions == 1)
            #expect(outcome.newEvents == 2, "bob's renewal and alice's transfer")
            #expect(try store.facts(userID: "alice") == UserFacts(), "alice's cache entry invalidated")
            #expect(transactionIDs(try store.facts(userID: "bob")) == ["1", "2"])

            let aliceHistory = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
            #expect(aliceHistory.events.map(\.kind) == [.ownershipTransfer, .purchase])
            #expect(aliceHistory.events.first?.originalTransactionID == "1")
            #expect(aliceHistory.events.first?.productID == "com.example.monthly")
        }
    }

    @Test(arguments: Backend.allCases)
    func rejectFailsTheWriteAndChangesNothing(backend: Backend) async throws {
        try await backend.withRepository(policy: .reject) { store in
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let conflicting = Fixture.receipt(
                "bob", [Fixture.subscription("7", chain: "7"), Fixture.subscription("2", chain: "1")],
                renewals: [
                    RenewalInfo(
                        originalTransactionID: "1",
                        autoRenewStatus: false, signedDateMs: 9)
                ],
                sourceID: "bob-receipt")
            // Good writes committed in the same batch must not be failed by the bad one.
            let conflictError = try await withThrowingTaskGroup(of: (any Error)?.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let id = "c\(index)"
                        _ = try await store.write(Fixture.receipt("carol", [Fixture.subscription(id, chain: id)]))
                        return nil
                    }
                }
                group.addTask {
                    do {
                        _ = try await store.write(conflicting)
                        return nil
                    } catch {
                        return error
                    }
                }
                return try await group.reduce(nil) { $0 ?? $1 }
            }
            let error = conflictError as? StoreError
            #expect(error?.code == .ownershipConflict, "\(String(describing: conflictError))")
            #expect(error?.message.contains("original transaction 1") ?? false)
            #expect(try store.facts(userID: "bob") == UserFacts())
            #expect(
                try store.facts(userID: "alice") == UserFacts(transactions: [Fixture.subscription("1", chain: "1")]))
            #expect(try store.facts(userID: "carol").transactions.count == 20)
            #expect(try store.history(userID: "bob", productID: nil, pageSize: 0, pageToken: nil).events == [])
            // The source was not recorded as processed either: resubmitting as alice works normally.
            let retry = try await store.write(FactsWrite(userID: "alice", transactions: conflicting.transactions,
                                                         source: .receipt, sourceID: "bob-receipt"))
            #expect(retry.tallies == WriteOutcome(newTransactions: 2, newEvents: 2, alreadyProcessed: false))
        }
    }
}
