import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// Migration 27 (`daily_rollup`) on a file with facts: the store fills the rollup from them
/// when it opens, to what the writer would have kept had it existed all along.
final class DailyRollupUpgradeTests: StoreTestCase {
    private let day0 = UTCDay(containing: Fixture.purchasedAt)
    private var days: ClosedRange<UTCDay> { day0.advanced(by: -1)...day0.advanced(by: 100) }

    private func chain(_ id: String, trial: Bool, renewals: Int, cancelledAt: Int64? = nil) -> [Transaction] {
        (0...renewals).map { index in
            let start = Fixture.purchasedAt + Int64(index) * 2_592_000_000
            return Transaction(transactionID: "\(id)\(index)", originalTransactionID: id, productID: "pro",
                               purchaseDateMs: start, expiresDateMs: start + 2_592_000_000,
                               cancellationDateMs: index == renewals ? cancelledAt : nil,
                               isTrialPeriod: trial && index == 0, environment: .production)
        }
    }

    func testAFileWithFactsFromBeforeTheRollupGetsItFilledWhenTheStoreOpens() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", chain("10", trial: true, renewals: 2)))
        _ = try await store.write(Fixture.receipt("bob", chain("20", trial: false, renewals: 1,
                                                                cancelledAt: Fixture.purchasedAt + 2_600_000_000)))
        _ = try await store.apply(Fixture.notification("v2:orphan",
                                                       transactions: chain("30", trial: true, renewals: 0)))
        let kept = try store.dailyFigures(days: days, environment: .production)
        await store.close()
        XCTAssertEqual(kept.map(\.newTrials).reduce(0, +), 2)
        XCTAssertEqual(kept.map(\.refunds).reduce(0, +), 1)

        // Back to version 26, as a binary before the rollup left the file (consumption answers,
        // 28, and the list of users without a record, 29, undone too).
        let db = try Connection(path: databasePath)
        try db.execute("""
            PRAGMA user_version = 26; DELETE FROM schema_migrations WHERE version >= 27;
            DROP TABLE daily_rollup; DROP TABLE daily_rollup_backfill; DROP TABLE consumption_answers;
            DROP TABLE user_facts_rewrite;
            ALTER TABLE transactions DROP COLUMN price_milli; ALTER TABLE transactions DROP COLUMN currency
            """)
        db.close()

        let upgraded = try openStore()
        XCTAssertEqual(try upgraded.dailyFigures(days: days, environment: .production), kept)
        await upgraded.close()
        let check = try Connection(path: databasePath)
        defer { check.close() }
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM daily_rollup_backfill"), 0, "filled once")
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM daily_rollup"), 8,
                       "one row per cell, which the three chains share")
    }

    func testAnEmptyFileIsNotMarkedForFilling() async throws {
        try await openStore().close()
        let check = try Connection(path: databasePath)
        defer { check.close() }
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM daily_rollup_backfill"), 0)
    }
}
