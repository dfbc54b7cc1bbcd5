import Entitlements
import EntitlementPorts
@testable import EntitlementStorage
import SQLite
import XCTest

/// ``UserKey``, the key of `user_facts` from migration 19 until 24: the hash migration 19 still
/// computes for older files, and their records' way through 19 and 24.
final class UserKeyTests: StoreTestCase {
    /// FNV-1a 64's published vectors: a stored key must never change with the implementation.
    func testTheKeyIsFNV1a64OfTheUTF8Bytes() throws {
        XCTAssertEqual(UInt64(bitPattern: UserKey.of("")), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(UInt64(bitPattern: UserKey.of("a")), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(UInt64(bitPattern: UserKey.of("foobar")), 0x8594_4171_f739_67e8)
        // Bytes, not characters: the composed and decomposed spellings are two users.
        XCTAssertNotEqual(UserKey.of("zo\u{EB}"), UserKey.of("zoe\u{308}"))
    }

    /// The SQL function the migration calls is the Swift function the readers and writers bind.
    func testTheMigrationsSQLFunctionIsTheSwiftOne() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try UserKey.define(on: db)
        for id in ["", "alice", "zo\u{EB}-\u{1F600}", String(repeating: "u", count: 300)] {
            let query = try db.prepare("SELECT \(UserKey.sqlFunction)(?)")
            query.bind(id, at: 1)
            XCTAssertTrue(try query.step())
            XCTAssertEqual(query.int64(at: 0), UserKey.of(id), id)
            query.reset()
        }
        XCTAssertNil(try db.scalarInt64("SELECT \(UserKey.sqlFunction)(NULL)"))
    }

    /// A version-18 file's records (keyed by user row) go through migration 19 (by key) and 24
    /// (by user row again) byte for byte; the upgraded store answers from them.
    func testAVersion18FileKeepsEveryRecordThroughTheKeyAndBack() async throws {
        let (records, alice, zoe) = try await twoUsersRecords()
        let oldPath = directory + "/version18.sqlite"
        // Only users and records, no chains: whatever the upgraded store answers comes from them.
        try createFile(at: oldPath, version: 18, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (5, 'alice', 1), (9, 'zo\u{EB}', 1);
            INSERT INTO user_facts (user_rowid, facts) VALUES
                (5, x'\(hex(records["alice"]!))'), (9, x'\(hex(records["zo\u{EB}"]!))');
            """)
        try await expectUpgradedRecords(oldPath, records, rows: ["alice": 5, "zo\u{EB}": 9], alice: alice, zoe: zoe)
    }

    /// A version-23 file (records under their UserKey with the id beside them) is keyed by user
    /// row after migration 24, byte for byte; a row whose id has no user (a collision's loser
    /// never has one: an id without a user was never written) is dropped, as nothing could read it.
    func testAVersion23FileIsKeyedByUserRowAndARowWithoutAUserGoes() async throws {
        let (records, alice, zoe) = try await twoUsersRecords()
        let oldPath = directory + "/version23.sqlite"
        try createFile(at: oldPath, version: 23, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (5, 'alice', 1), (9, 'zo\u{EB}', 1);
            INSERT INTO user_facts (user_key, user_id, facts) VALUES
                (\(UserKey.of("alice")), 'alice', x'\(hex(records["alice"]!))'),
                (\(UserKey.of("zo\u{EB}")), 'zo\u{EB}', x'\(hex(records["zo\u{EB}"]!))'),
                (\(UserKey.of("ghost")), 'ghost', x'\(hex(records["alice"]!))');
            """)
        try await expectUpgradedRecords(oldPath, records, rows: ["alice": 5, "zo\u{EB}": 9], alice: alice, zoe: zoe)
        let db = try Connection(path: oldPath)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM user_facts"), 2, "the ghost's row went")
        XCTAssertEqual(try db.scalarString("SELECT group_concat(name) FROM pragma_table_info('user_facts')"),
                       "user_rowid,facts")
    }

    /// alice's (two transactions of one chain) and zoë's records as a store writes them, and
    /// the facts it answers for them.
    private func twoUsersRecords() async throws -> ([String: [UInt8]], UserFacts, UserFacts) {
        let source = try openStore()
        _ = try await source.write(Fixture.receipt(
            "alice", [Fixture.subscription("1000", chain: "1000"), Fixture.subscription("1001", chain: "1000")]))
        _ = try await source.write(Fixture.receipt("zo\u{EB}", [Fixture.subscription("2000", chain: "2000")]))
        let alice = try source.facts(userID: "alice"), zoe = try source.facts(userID: "zo\u{EB}")
        await source.close()
        let records = try recordBytes(databasePath)
        XCTAssertEqual(Set(records.keys), ["alice", "zo\u{EB}"])
        return (records, alice, zoe)
    }

    /// Opens the old file (which upgrades it): the records answer, and each sits, byte for
    /// byte, under its user's row.
    private func expectUpgradedRecords(
        _ path: String, _ records: [String: [UInt8]], rows: [String: Int64], alice: UserFacts, zoe: UserFacts
    ) async throws {
        let store = try EntitlementStore(path: path, configuration: .init())
        store.start()
        XCTAssertEqual(try store.facts(userID: "alice"), alice)
        XCTAssertEqual(try store.facts(userID: "zo\u{EB}"), zoe)
        await store.close()

        let db = try Connection(path: path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertEqual(try recordBytes(path), records, "every record byte for byte")
        for (id, row) in rows {
            let key = try db.prepare(
                "SELECT f.user_rowid FROM user_facts f JOIN users u ON u.id = f.user_rowid WHERE u.user_id = ?")
            key.bind(id, at: 1)
            XCTAssertTrue(try key.step())
            XCTAssertEqual(key.int64(at: 0), row, id)
            key.reset()
        }
    }

    private func recordBytes(_ path: String) throws -> [String: [UInt8]] {
        let db = try Connection(path: path)
        defer { db.close() }
        let select = try db.prepare("SELECT u.user_id, f.facts FROM user_facts f JOIN users u ON u.id = f.user_rowid")
        defer { select.reset() }
        var rows: [String: [UInt8]] = [:]
        while try select.step() { rows[select.string(at: 0)] = select.withBytes(at: 1) { Array($0) } }
        return rows
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
