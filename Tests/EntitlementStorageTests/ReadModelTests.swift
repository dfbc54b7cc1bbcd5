import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// The `user_facts` read model: written with every change to a user's facts, equal to what the
/// tables say, and never needed for a correct answer (no record, or a bad one, reads the tables).
final class ReadModelTests: StoreTestCase {
    private func record(_ userID: String) throws -> UserFacts? {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        return try UserFacts.readRecord(try db.prepare(UserFacts.recordSQL), userID: userID,
                                        name: Self.productName(on: db))
    }

    /// A record's product and group names as a reader reads them: `product_names` rows.
    static func productName(on db: Connection) -> (Int64) -> String? {
        { row in try? db.scalarString("SELECT name FROM product_names WHERE id = \(row)") }
    }

    private func tables(_ userID: String) throws -> UserFacts {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        return try UserFacts.readTables(try db.prepare(UserFacts.tablesSQL), userID: userID)
    }

    /// A record refers to product and group ids by their `product_names` rows (format 3): none
    /// of their text is in it, and a new store's reader, which has read no row yet, answers
    /// from the record alone (no chains or transactions left to read).
    func testRecordsReferToProductAndGroupIDsByTheirRows() async throws {
        var store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [
            Fixture.subscription("1000", chain: "1000", product: "com.example.monthly"),
            Fixture.subscription("2000", chain: "2000", product: "com.example.yearly"),
        ]))
        let written = try store.facts(userID: "alice")
        await store.close()
        let db = try Connection(path: databasePath)
        let select = try db.prepare("SELECT facts FROM user_facts WHERE user_id = 'alice'")
        XCTAssertTrue(try select.step())
        let bytes = select.withBytes(at: 0) { Array($0) }
        select.reset()
        XCTAssertEqual(bytes.first, UserFactsRecord.version)
        for name in ["com.example.monthly", "com.example.yearly", "group"] {
            XCTAssertFalse(bytes.containsSubsequence(Array(name.utf8)), name)
            XCTAssertNotNil(try db.scalarInt64("SELECT id FROM product_names WHERE name = '\(name)'"))
        }
        try db.execute("DELETE FROM transactions; DELETE FROM renewal_infos; DELETE FROM chains")
        db.close()
        store = try openStore()
        XCTAssertEqual(try store.facts(userID: "alice"), written)
        await store.close()
    }

    func testEveryWriteLeavesARecordEqualToTheTables() async throws {
        let store = try openStore()
        let renewal = RenewalInfo(originalTransactionID: "1000", autoRenewStatus: true, signedDateMs: 5)
        _ = try await store.write(Fixture.receipt(
            "alice", [Fixture.subscription("1000", chain: "1000"), Fixture.subscription("2000", chain: "2000")],
            renewals: [renewal]))
        XCTAssertEqual(try record("alice"), try tables("alice"))
        XCTAssertEqual(try record("alice")?.transactions.count, 2)
        // A notification changes alice's facts: her record follows.
        _ = try await store.apply(Fixture.notification(
            "v2:renewal", transactions: [Fixture.subscription("1001", chain: "1000")]))
        XCTAssertEqual(try record("alice"), try tables("alice"))
        XCTAssertEqual(try record("alice")?.transactions.count, 3)
        // A transfer changes two users: both records follow.
        _ = try await store.write(Fixture.receipt("bob", [Fixture.subscription("2000", chain: "2000")]))
        XCTAssertEqual(try record("alice"), try tables("alice"))
        XCTAssertEqual(try record("bob"), try tables("bob"))
        XCTAssertEqual(Set(try record("alice")?.transactions.map(\.transactionID) ?? []), ["1000", "1001"])
        XCTAssertEqual(try store.facts(userID: "bob"), try tables("bob"))
        await store.close()
    }

    /// A transfer between `zo\u{EB}` and `zoe\u{308}` (canonically equivalent Strings, two users
    /// in the store) changes both in one write. With the writer's affected users a Set<String>,
    /// the two merged: only the new owner's record was rebuilt (and her facts read back), so the
    /// old owner kept the transferred chain in her record, and a miss answered her with it.
    func testATransferBetweenCanonicallyEquivalentIDsRefreshesBothRecords() async throws {
        let composed = "zo\u{EB}", decomposed = "zoe\u{308}"
        var store = try openStore()
        _ = try await store.write(Fixture.receipt(composed, [Fixture.subscription("1000", chain: "1000")]))
        XCTAssertEqual(transactionIDs(try store.facts(userID: composed)), ["1000"], "cached before the transfer")
        _ = try await store.write(Fixture.receipt(decomposed, [Fixture.subscription("1000", chain: "1000")]))
        for name in [composed, decomposed] {
            XCTAssertEqual(try record(name), try tables(name), "\(name.unicodeScalars.count) scalars")
        }
        XCTAssertEqual(try record(composed)?.transactions.count, 0, "the old owner's record lost the chain")
        XCTAssertEqual(transactionIDs(try store.facts(userID: composed)), [], "old owner, after the write")
        XCTAssertEqual(transactionIDs(try store.facts(userID: decomposed)), ["1000"], "new owner")
        await store.close()
        store = try openStore()  // an empty cache: every answer comes from the records
        XCTAssertEqual(transactionIDs(try store.facts(userID: composed)), [])
        XCTAssertEqual(transactionIDs(try store.facts(userID: decomposed)), ["1000"])
        await store.close()
    }

    /// The writer builds records from the facts each write's change recording read, keeping the
    /// last successful write's per user; a write refused in the same batch must not leave its view.
    /// A resubmitted receipt changes no fact, so its commit changes no page (another connection's
    /// `data_version` stays): every statement of the write is idempotent and SQLite leaves a cell
    /// rewritten with identical bytes (the `user_facts` record) clean. A changed receipt still writes.
    func testAnIdenticalResubmissionWritesNoPage() async throws {
        let store = try openStore()
        let receipt = Fixture.receipt(
            "alice", [Fixture.subscription("1000", chain: "1000"), Fixture.subscription("1001", chain: "1000")],
            renewals: [RenewalInfo(originalTransactionID: "1000", autoRenewStatus: true, signedDateMs: 5)])
        _ = try await store.write(receipt)
        let observer = try Connection(path: databasePath)
        defer { observer.close() }
        let before = try observer.scalarInt64("PRAGMA data_version")
        _ = try await store.write(receipt)
        XCTAssertEqual(try observer.scalarInt64("PRAGMA data_version"), before, "an identical write changed pages")
        XCTAssertEqual(try record("alice"), try tables("alice"))
        _ = try await store.write(Fixture.receipt(
            "alice", [Fixture.subscription("1002", chain: "1000")]))
        XCTAssertNotEqual(try observer.scalarInt64("PRAGMA data_version"), before)
        XCTAssertEqual(try record("alice"), try tables("alice"))
        XCTAssertEqual(try record("alice")?.transactions.count, 3)
    }

    func testWritesBatchedTogetherLeaveRecordsEqualToTheTables() async throws {
        let store = try openStore(policy: .reject)
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1000", chain: "1000")]))
        _ = try await store.write(Fixture.receipt("bob", [Fixture.subscription("2000", chain: "2000")]))
        let refused = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        switch index % 4 {
                        case 0:
                            _ = try await store.write(Fixture.receipt(
                                "alice", [Fixture.subscription("1\(index + 1_000)", chain: "1000")]))
                        case 1:
                            // Bob claiming alice's chain: refused under .reject, rolled back alone.
                            _ = try await store.write(Fixture.receipt(
                                "bob", [Fixture.subscription("1000", chain: "1000"),
                                        Fixture.subscription("2\(index + 1_000)", chain: "2000")]))
                        case 2:
                            _ = try await store.apply(Fixture.notification(
                                "v2:\(index)", transactions: [Fixture.subscription("3\(index + 1_000)", chain: "1000")],
                                renewals: [RenewalInfo(originalTransactionID: "1000", autoRenewStatus: index % 8 == 2,
                                                       signedDateMs: Int64(index))]))
                        default:
                            _ = try await store.write(Fixture.receipt(
                                "bob", [Fixture.subscription("4\(index + 1_000)", chain: "2000")]))
                        }
                        return false
                    } catch {
                        return true
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        XCTAssertEqual(refused, 10, "every claim of alice's chain by bob is refused, nothing else")
        XCTAssertLessThan(store.statistics.commits, store.statistics.appliedWrites, "some writes shared a commit")
        for user in ["alice", "bob"] {
            XCTAssertEqual(try record(user), try tables(user), user)
        }
        XCTAssertEqual(try record("alice")?.transactions.count, 21)
        XCTAssertEqual(try record("bob")?.transactions.count, 11)
        await store.close()
    }

    /// Migration 29 lists every user without a record, those from before the read model too,
    /// and the store builds their records from the tables when it opens.
    func testADatabaseFromBeforeTheReadModelGetsItsUsersRecordsWhenTheStoreOpens() async throws {
        try Version3Database.create(at: databasePath)
        let store = try openStore()
        XCTAssertEqual(try record("alice"), try tables("alice"), "built when the store opened")
        let before = try store.facts(userID: "alice")
        XCTAssertEqual(before.transactions.map(\.transactionID), ["1000"])
        XCTAssertEqual(before, try tables("alice"))
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1001", chain: "1000")]))
        XCTAssertEqual(try record("alice"), try tables("alice"))
        XCTAssertEqual(Set(try store.facts(userID: "alice").transactions.map(\.transactionID)), ["1000", "1001"])
        await store.close()
    }

    func testABadRecordIsIgnoredAndTheTablesAnswer() async throws {
        var store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1000", chain: "1000")]))
        let facts = try store.facts(userID: "alice")
        await store.close()
        for bad: [UInt8] in [[], [1, 200], [UserFactsRecord.version + 1, 0, 0, 0]] {
            let db = try Connection(path: databasePath)
            let update = try db.prepare(
                "UPDATE user_facts SET facts = ? WHERE user_id = 'alice'")
            update.bind(blob: bad, at: 1)
            try update.execute()
            XCTAssertEqual(db.changes, 1, "alice's record replaced")
            db.close()
            store = try openStore()
            XCTAssertEqual(try store.facts(userID: "alice"), facts, "record \(bad)")
            await store.close()
        }
    }

    func testSeedingWritesRecords() async throws {
        let store = try openStore()
        try await store.seed([Fixture.receipt("carol", [Fixture.subscription("3000", chain: "3000")])])
        XCTAssertEqual(try record("carol")?.transactions.map(\.transactionID), ["3000"])
        await store.close()
    }
}
