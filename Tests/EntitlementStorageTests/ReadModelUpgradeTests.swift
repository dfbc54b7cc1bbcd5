import Entitlements
import EntitlementPorts
@testable import EntitlementStorage
import SQLite
import XCTest

/// Migration 14 rebuilds `user_facts` as a rowid table with a unique index on user_id,
/// migration 16 keys it by the user's row (`users.id`) instead, and migration 19 by the user's
/// ``UserKey`` with the id beside it: the records a version-13 file holds must come through all
/// three byte for byte, and the writer's upsert must still find a user's row.
final class ReadModelUpgradeTests: StoreTestCase {
    private var version13Path: String { directory + "/version13.sqlite" }

    /// A file as a version-13 binary left it: the landed migrations 1-13 (append-only, so these
    /// are exactly what that binary ran), a users row per record (as that binary's writer left
    /// them, without chains) and the given records in the WITHOUT ROWID table, written with
    /// that version's upsert.
    private func createVersion13File(records: [(String, [UInt8])]) throws {
        let db = try Connection(path: version13Path)
        defer { db.close() }
        try db.execute("PRAGMA journal_mode = WAL")
        try Migrator(Array(Schema.migrator.migrations.prefix(13))).migrate(db, nowMs: 1)
        XCTAssertTrue(try userFactsDDL(db).contains("WITHOUT ROWID"), "version 13's user_facts")
        for (userID, bytes) in records {
            let user = try db.prepare("INSERT INTO users (user_id, created_at_ms) VALUES (?, 1)")
            user.bind(userID, at: 1)
            try user.execute()
            let insert = try db.prepare("""
                INSERT INTO user_facts (user_id, facts) VALUES (?, ?)
                ON CONFLICT (user_id) DO UPDATE SET facts = excluded.facts
                """)
            insert.bind(userID, at: 1)
            insert.bind(blob: bytes, at: 2)
            try insert.execute()
        }
    }

    private func userFactsDDL(_ db: Connection) throws -> String {
        try db.scalarString("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'user_facts'") ?? ""
    }

    /// Every record of a file at the latest version, by user id.
    private func recordBytes(_ db: Connection) throws -> [String: [UInt8]] {
        let select = try db.prepare("SELECT user_id, facts FROM user_facts")
        defer { select.reset() }
        var rows: [String: [UInt8]] = [:]
        while try select.step() {
            rows[select.string(at: 0)] = select.withBytes(at: 1) { Array($0) }
        }
        return rows
    }

    func testAVersion13FileKeepsEveryRecordByteForByteAndTheUpsertFindsThem() async throws {
        // Real records, written by today's writer into another file.
        let source = try openStore()
        let renewal = RenewalInfo(originalTransactionID: "1000", autoRenewStatus: true, signedDateMs: 5)
        _ = try await source.write(Fixture.receipt(
            "alice", [Fixture.subscription("1000", chain: "1000"), Fixture.subscription("1001", chain: "1000")],
            renewals: [renewal]))
        _ = try await source.write(Fixture.receipt("bob", [Fixture.subscription("2000", chain: "2000")]))
        let alice = try source.facts(userID: "alice"), bob = try source.facts(userID: "bob")
        await source.close()
        let sourceDB = try Connection(path: databasePath)
        XCTAssertEqual(Set(try recordBytes(sourceDB).keys), ["alice", "bob"])
        sourceDB.close()
        // The records as the writer encodes them with no product_names rows to refer to (a
        // version-13 file has none): self-contained, so they answer alone.
        let written = ["alice": UserFactsRecord.encode(alice), "bob": UserFactsRecord.encode(bob)]

        // Only records and users, no chains: whatever the upgraded store answers comes from them.
        try createVersion13File(records: written.sorted { $0.key < $1.key })
        let store = try EntitlementStore(path: version13Path, configuration: .init())
        store.start()
        XCTAssertEqual(try store.facts(userID: "alice"), alice)
        XCTAssertEqual(try store.facts(userID: "bob"), bob)
        // A new user, then the same user again: an insert, then ON CONFLICT (user_rowid)
        // updating the one row.
        _ = try await store.write(Fixture.receipt("carol", [Fixture.subscription("3000", chain: "3000")]))
        _ = try await store.write(Fixture.receipt("carol", [Fixture.subscription("3001", chain: "3000")]))
        XCTAssertEqual(Set(try store.facts(userID: "carol").transactions.map(\.transactionID)), ["3000", "3001"])
        await store.close()

        let db = try Connection(path: version13Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertFalse(try userFactsDDL(db).contains("WITHOUT ROWID"))
        var upgraded = try recordBytes(db)
        XCTAssertEqual(upgraded.removeValue(forKey: "carol").map { _ in true }, true)
        XCTAssertEqual(upgraded, written, "every record byte for byte")
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM user_facts"), 3, "one row per user")
        // Keyed by the user's UserKey (migrate-store copies by column name); no index of its own.
        XCTAssertEqual(try db.scalarString("SELECT group_concat(name) FROM pragma_table_info('user_facts')"),
                       "user_key,user_id,facts")
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM user_facts WHERE user_key = \(UserKey.of("alice"))"), 1)
        XCTAssertEqual(try db.scalarInt64(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'user_facts'"), 0)
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
        // A miss: one B-tree, the records by key.
        let plan = try db.prepare("EXPLAIN QUERY PLAN \(UserFacts.recordSQL)")
        defer { plan.reset() }
        var steps: [String] = []
        while try plan.step() { steps.append(plan.string(at: 3)) }
        XCTAssertEqual(steps, ["SEARCH user_facts USING INTEGER PRIMARY KEY (rowid=?)"])
    }

    /// A record format needs no migration: a store whose records were written in format 1 (the
    /// landed encoder's bytes) answers from them unchanged, and a user's next write rewrites
    /// that user's record in the current format, equal to the tables.
    func testFormat1RecordsAnswerUnchangedAndTheNextWriteRewritesThemInTheCurrentFormat() async throws {
        try await openStore().close()
        let samples = zip(UserFactsRecordVersion1Tests.landedSamples, UserFactsRecordTests.samples)
        let db = try Connection(path: databasePath)
        for (index, (hex, _)) in samples.enumerated() {
            try db.execute("INSERT INTO users (id, user_id, created_at_ms) VALUES (\(index + 1), 'user\(index)', 1)")
            try db.execute("""
                INSERT INTO user_facts (user_key, user_id, facts)
                VALUES (\(UserKey.of("user\(index)")), 'user\(index)', x'\(hex)')
                """)
        }
        db.close()

        let store = try openStore()
        // No chains or transactions: only the format-1 records can answer.
        for (index, (_, facts)) in samples.enumerated() {
            XCTAssertEqual(try store.facts(userID: "user\(index)"), facts, "user\(index)")
        }
        _ = try await store.write(Fixture.receipt("user2", [Fixture.subscription("9000", chain: "9000")]))
        let written = try store.facts(userID: "user2")
        await store.close()
        XCTAssertEqual(transactionIDs(written), ["9000"], "rebuilt from the tables")

        let check = try Connection(path: databasePath)
        defer { check.close() }
        XCTAssertEqual(
            try check.scalarString("SELECT hex(substr(facts, 1, 1)) FROM user_facts WHERE user_id = 'user2'"),
            "0" + String(UserFactsRecord.version, radix: 16))
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM user_facts WHERE substr(facts, 1, 1) = x'01'"), 4,
                       "the other users' records are left as they were")
        let reopened = try openStore()
        XCTAssertEqual(try reopened.facts(userID: "user2"), written)
        XCTAssertEqual(try reopened.facts(userID: "user3"), UserFactsRecordTests.samples[3])
        await reopened.close()
    }
}
