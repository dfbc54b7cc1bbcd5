import Entitlements
import EntitlementPorts
@testable import EntitlementStorage
import SQLite
import XCTest

/// Migration 14 rebuilds `user_facts` as a rowid table with a unique index on user_id: the
/// records a version-13 file holds must come through byte for byte, and the writer's upsert
/// must still find a user's row through the new index.
final class ReadModelUpgradeTests: StoreTestCase {
    private var version13Path: String { directory + "/version13.sqlite" }

    /// A file as a version-13 binary left it: the landed migrations 1-13 (append-only, so these
    /// are exactly what that binary ran) and the given records in the WITHOUT ROWID table.
    private func createVersion13File(records: [(String, [UInt8])]) throws {
        let db = try Connection(path: version13Path)
        defer { db.close() }
        try db.execute("PRAGMA journal_mode = WAL")
        try Migrator(Array(Schema.migrator.migrations.prefix(13))).migrate(db, nowMs: 1)
        XCTAssertTrue(try userFactsDDL(db).contains("WITHOUT ROWID"), "version 13's user_facts")
        for (userID, bytes) in records {
            let insert = try db.prepare(UserFacts.upsertRecordSQL)
            insert.bind(userID, at: 1)
            insert.bind(blob: bytes, at: 2)
            try insert.execute()
        }
    }

    private func userFactsDDL(_ db: Connection) throws -> String {
        try db.scalarString("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'user_facts'") ?? ""
    }

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
        let written = try recordBytes(sourceDB)
        sourceDB.close()
        XCTAssertEqual(Set(written.keys), ["alice", "bob"])

        // Only records, no table rows: whatever the upgraded store answers comes from them.
        try createVersion13File(records: written.sorted { $0.key < $1.key })
        let store = try EntitlementStore(path: version13Path, configuration: .init())
        store.start()
        XCTAssertEqual(try store.facts(userID: "alice"), alice)
        XCTAssertEqual(try store.facts(userID: "bob"), bob)
        // A new user, then the same user again: an insert, then ON CONFLICT (user_id) updating
        // the one row through the new unique index.
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
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM user_facts WHERE user_id = 'carol'"), 1)
        // The columns stay user_id and facts (migrate-store copies by column name).
        XCTAssertEqual(try db.scalarString("SELECT group_concat(name) FROM pragma_table_info('user_facts')"),
                       "user_id,facts")
        let plan = try db.prepare("EXPLAIN QUERY PLAN \(UserFacts.recordSQL)")
        defer { plan.reset() }
        XCTAssertTrue(try plan.step())
        XCTAssertEqual(plan.string(at: 3), "SEARCH user_facts USING INDEX user_facts_by_user (user_id=?)")
    }
}
