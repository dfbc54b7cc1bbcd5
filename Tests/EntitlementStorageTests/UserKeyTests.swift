import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// `user_facts` keyed by ``UserKey`` (migration 19): one B-tree per miss, answers as before.
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

    /// A version-18 file's records (keyed by user row) are found by key after the upgrade, byte
    /// for byte; its users' next writes update those rows.
    func testAVersion18FileKeepsEveryRecordUnderItsUserKey() async throws {
        let source = try openStore()
        _ = try await source.write(Fixture.receipt(
            "alice", [Fixture.subscription("1000", chain: "1000"), Fixture.subscription("1001", chain: "1000")]))
        _ = try await source.write(Fixture.receipt("zo\u{EB}", [Fixture.subscription("2000", chain: "2000")]))
        let alice = try source.facts(userID: "alice"), zoe = try source.facts(userID: "zo\u{EB}")
        await source.close()
        XCTAssertEqual(Set(try recordBytes(databasePath).keys), ["alice", "zo\u{EB}"])
        // The records as the writer encodes them with no product_names rows to refer to (the old
        // file has none): self-contained, so they answer alone.
        let records = ["alice": UserFactsRecord.encode(alice), "zo\u{EB}": UserFactsRecord.encode(zoe)]

        let oldPath = directory + "/version18.sqlite"
        // Only users and records, no chains: whatever the upgraded store answers comes from them.
        try createFile(at: oldPath, version: 18, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (5, 'alice', 1), (9, 'zo\u{EB}', 1);
            INSERT INTO user_facts (user_rowid, facts) VALUES
                (5, x'\(hex(records["alice"]!))'), (9, x'\(hex(records["zo\u{EB}"]!))');
            """)
        let store = try EntitlementStore(path: oldPath, configuration: .init())
        store.start()
        XCTAssertEqual(try store.facts(userID: "alice"), alice)
        XCTAssertEqual(try store.facts(userID: "zo\u{EB}"), zoe)
        await store.close()

        let db = try Connection(path: oldPath)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertEqual(try recordBytes(oldPath), records, "every record byte for byte")
        for id in ["alice", "zo\u{EB}"] {
            let key = try db.prepare("SELECT user_key FROM user_facts WHERE user_id = ?")
            key.bind(id, at: 1)
            XCTAssertTrue(try key.step())
            XCTAssertEqual(key.int64(at: 0), UserKey.of(id), id)
            key.reset()
        }
    }

    /// A row under a user's key that holds another user's id (two ids, one hash) never answers
    /// for that user, and the user's writes leave it alone: the user reads the tables.
    func testARowOfAnotherUserUnderTheSameKeyNeitherAnswersNorIsOverwritten() async throws {
        var store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1000", chain: "1000")]))
        _ = try await store.write(Fixture.receipt("bob", [Fixture.subscription("2000", chain: "2000")]))
        let alice = try store.facts(userID: "alice")
        await store.close()
        // Mallory's row (bob's record bytes) sits where alice's key points.
        let bobRecord = try recordBytes(databasePath)["bob"]!
        try withDatabase { db in
            try db.execute("""
                UPDATE user_facts SET user_id = 'mallory', facts = x'\(hex(bobRecord))' WHERE user_id = 'alice'
                """)
            XCTAssertEqual(db.changes, 1)
        }

        store = try openStore()
        XCTAssertEqual(try store.facts(userID: "alice"), alice, "the tables answer, not mallory's row")
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1001", chain: "1000")]))
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1000", "1001"])
        await store.close()
        XCTAssertEqual(try recordBytes(databasePath)["mallory"], bobRecord, "alice's write left it alone")
        XCTAssertNil(try recordBytes(databasePath)["alice"])
        store = try openStore()
        XCTAssertEqual(transactionIDs(try store.facts(userID: "alice")), ["1000", "1001"], "after a reopen too")
        await store.close()
    }

    private func withDatabase(_ body: (Connection) throws -> Void) throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try body(db)
    }

    private func recordBytes(_ path: String) throws -> [String: [UInt8]] {
        let db = try Connection(path: path)
        defer { db.close() }
        let select = try db.prepare("SELECT user_id, facts FROM user_facts")
        defer { select.reset() }
        var rows: [String: [UInt8]] = [:]
        while try select.step() { rows[select.string(at: 0)] = select.withBytes(at: 1) { Array($0) } }
        return rows
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
