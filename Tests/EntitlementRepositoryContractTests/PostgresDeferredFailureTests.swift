import EntitlementPorts
import Entitlements
import PostgreSQLStore
import StorageCore
import Testing
import TestSupport

/// A write's deferred inserts may be read with a later write's statements or at its batch's
/// end: a failure among them must still fail that write alone, and the counts its caller gets
/// must still be its own.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresDeferredFailureTests {
    private func receipt(_ n: Int, refused: Bool) -> FactsWrite {
        let id = refused ? "refused-\(n)" : "t\(n)"
        return Fixture.receipt("user-\(n)", [Fixture.subscription(id, chain: "c\(n)")], sourceID: "receipt-\(n)")
    }

    @Test func aWriteWhoseDeferredInsertFailsFailsAloneAndTheOthersKeepTheirCounts() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            try await withStarted(store) { store in
                // Only the history insert, a deferred statement, meets it.
                try await PostgresTestServer.execute("""
                    ALTER TABLE history_events ADD CONSTRAINT refuses_marked CHECK (event_id NOT LIKE '%refused%')
                    """, on: url)
                // Alone in its batch: read when the batch's results are.
                await expectStoreError(.storageFailure) { _ = try await store.write(receipt(0, refused: true)) }
                #expect(try store.facts(userID: "user-0").transactions.isEmpty)

                // Among others, wherever the batches put it.
                let refused: Set = [3, 8, 9, 15]
                let results = await withTaskGroup(of: (Int, Result<WriteOutcome, any Error>).self) { group in
                    for n in 1...16 {
                        let write = receipt(n, refused: refused.contains(n))
                        group.addTask { (n, await Result { try await store.write(write) }) }
                    }
                    return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                }
                for n in 1...16 {
                    let facts = try store.facts(userID: "user-\(n)")
                    switch results[n] {
                    case let .success(outcome)?:
                        #expect(!refused.contains(n), "write \(n) must fail")
                        #expect(outcome.newTransactions == 1 && outcome.newEvents >= 1, "write \(n): \(outcome)")
                        #expect(!outcome.alreadyProcessed)
                        #expect(facts.transactions.map(\.transactionID) == ["t\(n)"])
                    case let .failure(error)?:
                        #expect(refused.contains(n), "write \(n) failed: \(error)")
                        #expect((error as? StoreError)?.code == .storageFailure, "\(error)")
                        #expect(facts.transactions.isEmpty, "nothing of write \(n) stays")
                    case nil:
                        Issue.record("write \(n) has no result")
                    }
                }

                // Nothing of a failed write stayed: once allowed, it records afresh.
                try await PostgresTestServer.execute(
                    "ALTER TABLE history_events DROP CONSTRAINT refuses_marked", on: url)
                let again = try await store.write(receipt(3, refused: true))
                #expect(!again.alreadyProcessed && again.newTransactions == 1 && again.newEvents >= 1)
            }
        }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing call.
    fileprivate init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
