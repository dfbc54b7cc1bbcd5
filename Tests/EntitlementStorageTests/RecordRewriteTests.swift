import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// Migration 29 (`user_facts_rewrite_missing_records`) lists the users without a record, and
/// the store builds theirs when it opens, a batch per transaction: one batch's records commit
/// with its removal from the list, so an interrupted rewrite resumes without losing or
/// repeating a user, and a store with nobody listed opens without a write transaction.
final class RecordRewriteTests: StoreTestCase {
    private let users = ["alice", "bob", "carol"]

    /// A file at the latest version whose users `users` lost their records (as migration 25
    /// left them), with "dave" keeping his: the migrations from 28 on run over it again.
    private func createFileWithoutRecords() async throws -> [String: UserFacts] {
        let store = try openStore()
        var facts: [String: UserFacts] = [:]
        for (index, userID) in (users + ["dave"]).enumerated() {
            let chain = "\(index + 1)000"
            _ = try await store.write(Fixture.receipt(userID, [Fixture.subscription(chain, chain: chain)]))
            facts[userID] = try store.facts(userID: userID)
        }
        await store.close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try db.execute("""
            DELETE FROM user_facts WHERE user_id <> 'dave';
            PRAGMA user_version = 28; DELETE FROM schema_migrations WHERE version >= 29;
            DROP TABLE user_facts_rewrite;
            """)
        return facts
    }

    private func listed(_ db: Connection) throws -> Int64? {
        try db.scalarInt64("SELECT count(*) FROM user_facts_rewrite")
    }

    private func recordCount(_ db: Connection) throws -> Int64? {
        try db.scalarInt64("SELECT count(*) FROM user_facts")
    }

    func testAnInterruptedRewriteResumesWhenTheStoreNextOpens() async throws {
        let facts = try await createFileWithoutRecords()
        let db = try Connection(path: databasePath)
        try Schema.migrate(db, nowMs: 1)
        XCTAssertEqual(try listed(db), 3, "the users without a record, not dave")
        let recorder = try FactsRecorder(db: db, transferPolicy: .transfer, clock: { 1 })

        let more = try db.transaction(beginning: Connection.beginWrite) { try recorder.rewriteRecords(limit: 1) }
        XCTAssertTrue(more)
        XCTAssertEqual(try listed(db), 2)
        XCTAssertEqual(try recordCount(db), 2, "dave's and the first listed user's")
        // A batch that fails before COMMIT keeps neither its records nor its removal from the list.
        struct Crash: Error {}
        XCTAssertThrowsError(try db.transaction(beginning: Connection.beginWrite) {
            _ = try recorder.rewriteRecords(limit: 1)
            throw Crash()
        })
        XCTAssertEqual(try listed(db), 2)
        XCTAssertEqual(try recordCount(db), 2)
        db.close()

        let store = try openStore()
        for (userID, userFacts) in facts { XCTAssertEqual(try store.facts(userID: userID), userFacts, userID) }
        await store.close()
        let check = try Connection(path: databasePath)
        defer { check.close() }
        XCTAssertEqual(try listed(check), 0)
        XCTAssertEqual(try recordCount(check), 4, "one record per user")
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM user_facts WHERE substr(facts, 1, 1) = x'03'"), 4)
    }

    func testTheStoreRewritesInBatchesAndWithNobodyListedTakesNoTransaction() async throws {
        _ = try await createFileWithoutRecords()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try Schema.migrate(db, nowMs: 1)
        let recorder = try FactsRecorder(db: db, transferPolicy: .transfer, clock: { 1 })
        XCTAssertEqual(try recorder.rewriteListedRecords(), 1, "three users, one batch")
        XCTAssertEqual(try listed(db), 0)
        XCTAssertEqual(try recordCount(db), 4)
        XCTAssertEqual(try recorder.rewriteListedRecords(), 0, "nobody listed: no write transaction")

        // More users than a batch: as many transactions as batches (and one that finds the end
        // when the last batch was full).
        let count = WriterLimits.recordRewriteBatch + 1
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO users (user_id, created_at_ms) SELECT 'bulk' || i, 1 FROM n;
            INSERT INTO user_facts_rewrite (user_rowid) SELECT id FROM users WHERE user_id LIKE 'bulk%';
            """)
        XCTAssertEqual(try recorder.rewriteListedRecords(), 2)
        XCTAssertEqual(try listed(db), 0)
        XCTAssertEqual(try recordCount(db), Int64(4 + count), "a user without chains gets the writer's empty record")
    }
}
