import Entitlements
import EntitlementPorts
import EntitlementStorage
import XCTest

final class OwnershipTests: StoreTestCase {
    func testTransferMovesTheChainAndTellsThePreviousOwner() async throws {
        let store = try openStore(policy: .transfer)
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1"], "cached for alice")

        let outcome = try await store.write(Fixture.receipt("bob", [Fixture.subscription("1", chain: "1"),
                                                            Fixture.subscription("2", chain: "1")]))
        XCTAssertEqual(outcome.newTransactions, 1)
        XCTAssertEqual(outcome.newEvents, 2, "bob's renewal and alice's transfer")
        XCTAssertEqual(try store.facts(userID: "alice"), UserFacts(), "alice's cache entry invalidated")
        XCTAssertEqual(transactionIDs(try store.facts(userID: "bob")), ["1", "2"])

        let aliceHistory = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        XCTAssertEqual(aliceHistory.events.map(\.kind), [.ownershipTransfer, .purchase])
        XCTAssertEqual(aliceHistory.events.first?.originalTransactionID, "1")
        XCTAssertEqual(aliceHistory.events.first?.productID, "com.example.monthly")
        await store.close()
    }

    func testRejectFailsTheWriteAndChangesNothing() async throws {
        let store = try openStore(policy: .reject)
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
        let conflicting = Fixture.receipt("bob", [Fixture.subscription("7", chain: "7"), Fixture.subscription("2", chain: "1")],
                                  renewals: [RenewalInfo(originalTransactionID: "1",
                                                         autoRenewStatus: false, signedDateMs: 9)],
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
        XCTAssertEqual(error?.code, .ownershipConflict, "\(String(describing: conflictError))")
        XCTAssertTrue(error?.message.contains("original transaction 1") ?? false)
        XCTAssertEqual(try store.facts(userID: "bob"), UserFacts())
        XCTAssertEqual(try store.facts(userID: "alice"),
                       UserFacts(transactions: [Fixture.subscription("1", chain: "1")]))
        XCTAssertEqual(try store.facts(userID: "carol").transactions.count, 20)
        XCTAssertEqual(try store.history(userID: "bob", productID: nil, pageSize: 0, pageToken: nil).events,
                       [])
        // The source was not recorded as processed either: resubmitting as alice works normally.
        let retry = try await store.write(FactsWrite(userID: "alice", transactions: conflicting.transactions,
                                                     source: .receipt, sourceID: "bob-receipt"))
        XCTAssertEqual(retry, WriteOutcome(newTransactions: 2, newEvents: 2, alreadyProcessed: false))
        await store.close()
    }
}
