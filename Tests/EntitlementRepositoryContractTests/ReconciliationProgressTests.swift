import EntitlementMemoryStore
import EntitlementPorts
import Entitlements
import Foundation
import SQLiteStore
import StorageCore
import Testing
import TestSupport

/// The reconciliation watermark (``ReconciliationProgress``) on every backend: per
/// environment, never backwards, ordered after the writes acknowledged before it, and (SQLite)
/// still there after the store is closed and opened again.
struct ReconciliationProgressTests {
    @Test(arguments: Backend.allCases)
    func watermarksArePerEnvironmentAndNeverMoveBackwards(backend: Backend) async throws {
        try await backend.withRepository { repository in
            let progress = try #require(repository as? any ReconciliationProgress)
            #expect(try await progress.reconciledThrough(.production) == nil)
            #expect(try await progress.reconciledThrough(.sandbox) == nil)
            try await progress.recordReconciled(.production, through: 5_000)
            #expect(try await progress.reconciledThrough(.production) == 5_000)
            #expect(try await progress.reconciledThrough(.sandbox) == nil, "the other environment is untouched")
            try await progress.recordReconciled(.production, through: 3_000)
            #expect(try await progress.reconciledThrough(.production) == 5_000, "an older window leaves it alone")
            try await progress.recordReconciled(.production, through: 9_000)
            try await progress.recordReconciled(.sandbox, through: 1_000)
            #expect(try await progress.reconciledThrough(.production) == 9_000)
            #expect(try await progress.reconciledThrough(.sandbox) == 1_000)
        }
    }

    @Test(arguments: Backend.allCases)
    func aWatermarkRecordedAfterAnAppliedNotificationFindsItApplied(backend: Backend) async throws {
        try await backend.withRepository { repository in
            let progress = try #require(repository as? any ReconciliationProgress)
            _ = try await repository.write(Fixture.receipt("alice", [Fixture.subscription("1", chain: "1")]))
            let outcome = try await repository.apply(
                Fixture.notification("v2:n1", transactions: [Fixture.subscription("2", chain: "1")]))
            #expect(outcome.newTransactions == 1)
            try await progress.recordReconciled(.production, through: 42)
            #expect(transactionIDs(try repository.facts(userID: "alice")) == ["1", "2"])
            #expect(try await progress.reconciledThrough(.production) == 42)
        }
    }

    @Test func theSQLiteWatermarkSurvivesReopening() async throws {
        let directory = try TemporaryDirectory("entitlement-watermark")
        defer { directory.remove() }
        let path = directory.file("entitlements.sqlite")
        let first = try EntitlementStore(path: path)
        first.start()
        try await first.recordReconciled(.sandbox, through: 1_700_000_000_000)
        await first.close()
        let second = try EntitlementStore(path: path)
        second.start()
        #expect(try await second.reconciledThrough(.sandbox) == 1_700_000_000_000)
        #expect(try await second.reconciledThrough(.production) == nil)
        await second.close()
        await #expect(throws: StoreError.self) { try await second.recordReconciled(.sandbox, through: 1) }
    }
}
