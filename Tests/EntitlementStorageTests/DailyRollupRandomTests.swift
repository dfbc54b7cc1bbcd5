import EntitlementPorts
import Entitlements
import SeededRandom
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// The rollup the writer keeps through many writes in random order (duplicates, refunds,
/// reversals, prices, batches that share chains) equals the rollup filled from scratch from
/// the facts those writes left (the backfill, which reads only the stored chains).
final class DailyRollupRandomTests: StoreTestCase {
    private let day = UTCDay.milliseconds

    private func chain(_ chainID: Int, random: inout SplitMix64) -> [Transaction] {
        var start = Fixture.purchasedAt + Int64.random(in: 0..<40, using: &random) * day
            + Int64.random(in: 0..<day, using: &random)
        return (0..<Int.random(in: 1...5, using: &random)).map { index in
            let trial = index == 0 && Bool.random(using: &random)
            let length = trial ? 7 * day : 30 * day
            // Sometimes a lapse before the next period.
            if index > 0, Int.random(in: 0..<4, using: &random) == 0 { start += 3 * day }
            defer { start += length }
            let refunded = Int.random(in: 0..<8, using: &random) == 0
            return Transaction(transactionID: "\(chainID)\(index)", originalTransactionID: "\(chainID)", productID: "p",
                               purchaseDateMs: start, expiresDateMs: start + length,
                               cancellationDateMs: refunded ? start + day : nil, isTrialPeriod: trial,
                               isInIntroOfferPeriod: trial, environment: .production)
        }
    }

    func testTheKeptRollupEqualsTheRollupOfTheStoredFacts() async throws {
        var random = SplitMix64(seed: 38)
        var writes: [(FactsWrite?, NotificationWrite?)] = []
        for chainID in 100..<140 {
            let transactions = chain(chainID, random: &random)
            for (index, transaction) in transactions.enumerated() {
                let price = TransactionPrice(transactionID: transaction.transactionID, milliUnits: Int64(index) * 1_000,
                                             currency: chainID % 2 == 0 ? "USD" : "EUR")
                let notification = NotificationWrite(
                    source: .notificationV2, sourceID: "v2:\(transaction.transactionID)",
                    signedDateMs: transaction.purchaseDateMs, transactions: [transaction], prices: [price])
                writes.append((nil, notification))
                writes.append((nil, notification))
                if let cancelled = transaction.cancellationDateMs, Bool.random(using: &random) {
                    writes.append((nil, NotificationWrite(
                        source: .notificationV2, sourceID: "v2:reverse\(transaction.transactionID)",
                        signedDateMs: cancelled + 1, reversedRefunds: [transaction.transactionID])))
                }
            }
            var unrefunded = transactions
            for index in unrefunded.indices { unrefunded[index].cancellationDateMs = nil }
            writes.append((Fixture.receipt("u\(chainID % 7)", unrefunded), nil))
        }
        writes.shuffle(using: &random)

        let store = try openStore()
        // Concurrently, so batches hold several writes to one chain.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (write, notification) in writes {
                group.addTask {
                    if let write { _ = try await store.write(write) }
                    if let notification { _ = try await store.apply(notification) }
                }
            }
            try await group.waitForAll()
        }
        let first = UTCDay(containing: Fixture.purchasedAt)
        let days = first...first.advanced(by: 250)
        let kept = try store.dailyFigures(days: days, environment: .production)
        await store.close()
        XCTAssertGreaterThan(kept.map(\.refunds).reduce(0, +), 0)
        XCTAssertGreaterThan(kept.map(\.trialConversions).reduce(0, +), 0)
        XCTAssertGreaterThan(kept.map(\.churn).reduce(0, +), 0)

        let db = try Connection(path: databasePath)
        try db.execute("DELETE FROM daily_rollup; INSERT INTO daily_rollup_backfill (chains_through) VALUES (0)")
        db.close()
        let refilled = try openStore()
        let filled = try refilled.dailyFigures(days: days, environment: .production)
        XCTAssertEqual(filled.count, kept.count)
        let differing = zip(kept, filled).filter { $0 != $1 }
        XCTAssertTrue(differing.isEmpty, "kept vs filled: \(differing.prefix(3))")
        await refilled.close()
    }
}
