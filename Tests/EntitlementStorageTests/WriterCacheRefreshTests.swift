import EntitlementPorts
import Entitlements
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
        var rounds = RandomWrites(seed: 14, chains: 12, maxChainsPerWrite: 3, maxTransactionsPerChain: 3,
                                  products: ["com.example.monthly", "com.example.yearly"])
        var writers = Set<[UInt8]>()  // by bytes: a Set<String> merges the equivalent pair
        for round in 0..<60 {
            let writes = rounds.next(round)
            let (receipts, notifications) = (writes.receipts, writes.notifications)
            writers.formUnion(receipts.map { Array($0.userID.utf8) })
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
            for user in RandomWrites.users {
                XCTAssertEqual(try store.facts(userID: user), try freshRead(user, on: observer),
                               "round \(round), user \(user.unicodeScalars.map(\.value))")
            }
        }
        XCTAssertEqual(writers.count, RandomWrites.users.count, "every user wrote")
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
