import EntitlementPorts
import Entitlements
import SeededRandom
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// After a commit the writer gives the facts cache the facts it read inside the transaction
/// instead of dropping them (``FactsCache/refresh(_:for:insertingIfAbsent:)``): a cached answer
/// must be exactly what a read of the committed file returns, whatever the write did.
final class WriterCacheRefreshTests: StoreTestCase {
    /// What a reader that bypasses the cache gets: the record, or the tables without one.
    private func freshRead(_ userID: String, on db: Connection) throws -> UserFacts {
        try UserFacts.readRecord(try db.prepare(UserFacts.recordSQL), userID: userID,
                                 name: ReadModelTests.productName(on: db))
            ?? UserFacts.readTables(try db.prepare(UserFacts.tablesSQL), userID: userID)
    }

    /// Random rounds of receipts (new chains, renewals, refunds and revocations as cancellations,
    /// transfers between users, two canonically equivalent user ids) and notifications, several
    /// sent at once so they share a batch; after each round every user's cached facts equal a
    /// fresh read, and the users who wrote are answered from the cache.
    func testCachedFactsAfterEachWriteEqualAFreshRead() async throws {
        let store = try openStore()
        let observer = try Connection(path: databasePath)
        defer { observer.close() }
        let users = ["ann", "bo", "cy", "zo\u{EB}", "zoe\u{308}"]
        var random = SplitMix64(seed: 14)
        var nextTransaction = 1_000
        func transaction(chain: Int) -> Transaction {
            nextTransaction += 1
            let purchasedAt = 1_700_000_000_000 + Int64(random.below(90)) * 86_400_000
            let cancelled: Int64? = random.below(6) == 0 ? purchasedAt + 3_600_000 : nil
            return Fixture.subscription(String(nextTransaction), chain: "c\(chain)",
                                        product: random.below(3) == 0 ? "com.example.yearly" : "com.example.monthly",
                                        purchasedAt: purchasedAt, cancelledAt: cancelled)
        }
        var writers = Set<[UInt8]>()  // by bytes: a Set<String> merges the equivalent pair
        for round in 0..<60 {
            var receipts: [FactsWrite] = []
            var notifications: [NotificationWrite] = []
            for _ in 0..<(1 + random.below(4)) {
                let chains = (0..<(1 + random.below(3))).map { _ in random.below(12) }
                var transactions: [Transaction] = []
                for chain in chains {
                    transactions += (0..<(1 + random.below(3))).map { _ in transaction(chain: chain) }
                }
                let renewals = chains.filter { _ in random.below(2) == 0 }.map {
                    RenewalInfo(originalTransactionID: "c\($0)", autoRenewStatus: random.below(2) == 0,
                                signedDateMs: Int64(round * 10 + random.below(10)))
                }
                if random.below(4) == 0 {
                    notifications.append(Fixture.notification("n\(round)-\(notifications.count)",
                                                              transactions: transactions, renewals: renewals))
                } else {
                    let user = users[random.below(users.count)]
                    writers.insert(Array(user.utf8))
                    receipts.append(Fixture.receipt(user, transactions, renewals: renewals))
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for receipt in receipts { group.addTask { _ = try await store.write(receipt) } }
                for notification in notifications { group.addTask { _ = try await store.apply(notification) } }
                try await group.waitForAll()
            }
            for user in receipts.map(\.userID) {
                guard case .hit = store.cache.lookup(user) else {
                    return XCTFail("round \(round): \(user.unicodeScalars.map(\.value)) not cached after its write")
                }
            }
            for user in users {
                XCTAssertEqual(try store.facts(userID: user), try freshRead(user, on: observer),
                               "round \(round), user \(user.unicodeScalars.map(\.value))")
            }
        }
        XCTAssertEqual(writers.count, users.count, "every user wrote")
        await store.close()
    }

    /// A user a notification changed is refreshed when cached and not added when not.
    func testANotificationRefreshesOnlyCachedUsers() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("ann", [Fixture.subscription("1", chain: "c1")]))
        _ = try await store.write(Fixture.receipt("bo", [Fixture.subscription("2", chain: "c2")]))
        store.cache.invalidate(["bo"])
        _ = try await store.apply(Fixture.notification(
            "n1", transactions: [Fixture.subscription("3", chain: "c1"), Fixture.subscription("4", chain: "c2")]))
        guard case let .hit(facts) = store.cache.lookup("ann") else { return XCTFail("ann was cached") }
        XCTAssertEqual(transactionIDs(facts), ["1", "3"])
        guard case .miss = store.cache.lookup("bo") else { return XCTFail("bo was not cached") }
        XCTAssertEqual(transactionIDs(try store.facts(userID: "bo")), ["2", "4"])
        await store.close()
    }
}

extension SplitMix64 {
    /// A number in 0..<bound, for the table's small choices.
    fileprivate mutating func below(_ bound: Int) -> Int { Int(next(upperBound: UInt64(bound))) }
}
