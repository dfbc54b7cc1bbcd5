import EntitlementPorts
import Entitlements
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// A transaction of a chain the write just created is inserted unless stored, without a lookup
/// first; when it was stored after all, the write must end exactly as the lookup path ends it.
final class NewChainInsertTests: StoreTestCase {
    func testAnIDStoredUnderAnotherChainIsMergedThereNotFailed() async throws {
        let store = try openStore()
        let first = Fixture.subscription("t1", chain: "A")
        _ = try await store.write(Fixture.receipt("alice", [first]))
        // Same expiry: a later one would move alice's stored row from bob's write, which is not
        // what this test is about (the insert-or-lookup path).
        let again = Fixture.subscription("t1", chain: "B")
        let outcome = try await store.write(Fixture.receipt("bob", [again]))

        XCTAssertEqual(outcome.newTransactions, 0, "stored already, under chain A")
        XCTAssertEqual(try store.facts(userID: "alice").transactions, [first.merged(with: again)])
        XCTAssertEqual(try store.facts(userID: "bob").transactions, [])
        let alice = try store.history(userID: "alice", productID: nil, pageSize: 10, pageToken: nil).events
        let bob = try store.history(userID: "bob", productID: nil, pageSize: 10, pageToken: nil).events
        // What the lookup path records (checked against the writer before this change): the
        // first write's event alone, nothing for the writer of chain B.
        XCTAssertEqual(alice.map(\.originalTransactionID), ["A"])
        XCTAssertEqual(alice.map(\.expiresAtMs), [first.expiresDateMs])
        XCTAssertEqual(bob, [])
        await store.close()
    }

    func testAnIDRepeatedInOneWriteOfANewChainIsStoredOnceAndMerged() async throws {
        let store = try openStore()
        let first = Fixture.subscription("t2", chain: "C")
        var later = first
        later.expiresDateMs = first.expiresDateMs.map { $0 + 86_400_000 }
        let outcome = try await store.write(Fixture.receipt("carol", [first, later]))

        XCTAssertEqual(outcome.newTransactions, 1)
        XCTAssertEqual(try store.facts(userID: "carol").transactions, [first.merged(with: later)])
        await store.close()
    }

    func testANewChainsTransactionsAreAllInsertedInTheirOrder() async throws {
        let store = try openStore()
        let transactions = (1...3).map { Fixture.subscription("n\($0)", chain: "N") }
        let outcome = try await store.write(Fixture.receipt("dave", transactions))

        XCTAssertEqual(outcome.newTransactions, 3)
        XCTAssertEqual(try store.facts(userID: "dave").transactions.map(\.transactionID), ["n1", "n2", "n3"])
        await store.close()
    }
}
