import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import Synchronization
import TestSupport
import XCTest

/// The writer holds the statements every write runs: looking one up by its SQL text hashes and
/// compares a few hundred bytes, ~10 times per write, which profiling showed as 2-3 % of the
/// writer. A batch still looks up its own few (BEGIN, COMMIT, the change log's probes after it),
/// so what a batch looks up must not depend on what its write carries.
final class WriterStatementTests: StoreTestCase {
    func testABatchLooksUpTheSameStatementsWhateverItsWriteCarries() async throws {
        let store = try openStore()
        // Every path once first, so nothing below is a first use.
        _ = try await store.write(Fixture.receipt("warm", [Fixture.subscription("w1", chain: "w")],
                                                  renewals: [Self.renewal("w")], sourceID: "r-w"))
        _ = try await store.apply(Fixture.notification(
            "n-w", transactions: [Fixture.subscription("w2", chain: "w")], renewals: [Self.renewal("w", signedAt: 2)]))

        let oneTransaction = try await lookups(in: store) {
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("a1", chain: "a")],
                                                      renewals: [Self.renewal("a")], sourceID: "r-a"))
        }
        let sixChains = try await lookups(in: store) {
            let transactions = (1...6).map { Fixture.subscription("b\($0)", chain: "b\($0)") }
            let renewals = (1...6).map { Self.renewal("b\($0)") }
            _ = try await store.write(Fixture.receipt("bob", transactions, renewals: renewals, sourceID: "r-b"))
        }
        let resubmission = try await lookups(in: store) {
            _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("a1", chain: "a")]))
        }
        let renewalNotice = try await lookups(in: store) {
            let outcome = try await store.apply(Fixture.notification(
                "n-a", transactions: [Fixture.subscription("a2", chain: "a", purchasedAt: 1_702_592_000_000)],
                renewals: [Self.renewal("a", signedAt: 3)]))
            XCTAssertEqual(outcome.ownerUserIDs, ["alice"])
        }
        let orphanNotice = try await lookups(in: store) {
            _ = try await store.apply(Fixture.notification(
                "n-o", transactions: [Fixture.subscription("o1", chain: "o")]))
        }
        XCTAssertEqual(sixChains, oneTransaction, "a write's own statements must be held, not looked up")
        // A batch's own: BEGIN, COMMIT, the next due instant and, when it appended changes, the
        // newest change sequence. The old writer looked up ~10 more per write.
        for (what, count) in [("one transaction", oneTransaction), ("resubmission", resubmission),
                              ("renewal notification", renewalNotice), ("orphan notification", orphanNotice)] {
            XCTAssertLessThanOrEqual(count, 4, what)
        }
        XCTAssertEqual(try store.facts(userID: "bob").transactions.count, 6)
        XCTAssertEqual(Set(try store.facts(userID: "alice").transactions.map(\.transactionID)), ["a1", "a2"])
        await store.close()
    }

    private static func renewal(_ chain: String, signedAt: Int64 = 1) -> RenewalInfo {
        RenewalInfo(originalTransactionID: chain, autoRenewStatus: true, signedDateMs: 1_700_000_000_000 + signedAt)
    }

    /// How many statements the writer looked up by SQL text while `body` ran (its own batches).
    private func lookups(in store: EntitlementStore, _ body: () async throws -> Void) async throws -> Int {
        let before = try await statementLookups(store)
        try await body()
        return try await statementLookups(store) - before
    }

    private func statementLookups(_ store: EntitlementStore) async throws -> Int {
        let counted = Counted()
        try await store.withWriterConnection { db in counted.value.withLock { $0 = db.statementLookups } }
        return counted.value.withLock { $0 }
    }
}

private final class Counted: Sendable {
    let value = Mutex(0)
}
