import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
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

    /// Migrations 25 (`user_facts_drop_formats_1_and_2`) and 29
    /// (`user_facts_rewrite_missing_records`): a file a version-24 binary left, whose records are
    /// in formats 1 and 2 (real bytes those formats' encoders wrote, of users whose rows in the
    /// tables are the facts they held: the bench file's users u999999 at 68584a3 and u0, u1 at
    /// 0c33037), has every such user's record in format 3 once the upgraded store has opened,
    /// as the writer builds it from the tables; the answers are the same, a current record is
    /// kept byte for byte, and the list of users to rebuild is left empty.
    func testFormat1And2RecordsAreRewrittenInTheCurrentFormatWhenTheUpgradedStoreOpens() async throws {
        let oldRecords = [("u999999", Self.version1u999999), ("u0", Self.version2u0), ("u1", Self.version2u1)]
        let store = try openStore()
        var expected: [String: UserFacts] = [:]
        for (userID, facts) in Self.oldRecordFacts {
            _ = try await store.write(FactsWrite(userID: userID, transactions: facts.transactions,
                                                 renewalInfos: Array(facts.renewalInfos.values), source: .receipt))
            expected[userID] = facts
        }
        _ = try await store.write(Fixture.receipt("current", [Fixture.subscription("4000", chain: "4000")]))
        expected["current"] = try store.facts(userID: "current")
        await store.close()
        let latest = Schema.migrator.latestVersion
        let db = try Connection(path: databasePath)
        for (userID, hex) in oldRecords {
            try db.execute("UPDATE user_facts SET facts = x'\(hex)' WHERE user_id = '\(userID)'")
        }
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM user_facts WHERE substr(facts, 1, 1) < x'03'"), 3)
        let current = try recordBytes(db)["current"]
        // Back to version 24, before migration 25: the later ones undone too (grants, 26;
        // daily_rollup, 27; consumption answers, 28; the list of users without a record, 29).
        try db.execute("""
            PRAGMA user_version = 24; DELETE FROM schema_migrations WHERE version >= 25; DROP TABLE grants;
            ALTER TABLE history_events DROP COLUMN actor; ALTER TABLE history_events DROP COLUMN reason;
            DROP TABLE daily_rollup; DROP TABLE daily_rollup_backfill; DROP TABLE consumption_answers;
            DROP TABLE user_facts_rewrite;
            ALTER TABLE transactions DROP COLUMN price_milli; ALTER TABLE transactions DROP COLUMN currency
            """)
        db.close()

        let upgraded = try openStore()
        for (userID, facts) in expected {
            let read = try upgraded.facts(userID: userID)
            XCTAssertEqual(read, facts, userID)
            for instant in Self.oldRecordInstants {
                XCTAssertEqual(EntitlementRules.entitlements(for: read, at: .at(instant), catalog: .empty),
                               EntitlementRules.entitlements(for: facts, at: .at(instant), catalog: .empty), userID)
            }
        }
        await upgraded.close()

        let check = try Connection(path: databasePath)
        defer { check.close() }
        XCTAssertEqual(try check.scalarInt64("PRAGMA user_version"), Int64(latest))
        XCTAssertEqual(try check.scalarInt64("SELECT count(*) FROM user_facts_rewrite"), 0, "the list is done")
        let records = try recordBytes(check)
        XCTAssertEqual(records.keys.sorted(), ["current", "u0", "u1", "u999999"], "every user has a record")
        XCTAssertEqual(records["current"], current, "a current record is kept byte for byte")
        let tables = try check.prepare(UserFacts.tablesSQL)
        for (userID, _) in oldRecords {
            let record = try XCTUnwrap(records[userID], userID)
            XCTAssertEqual(record.first, UserFactsRecord.version, userID)
            let fromTables = try UserFacts.readTables(tables, userID: userID)
            XCTAssertEqual(fromTables, expected[userID], userID)
            let decoded = try record.withUnsafeBytes { bytes in
                try UserFactsRecord.decode(bytes) { row in try? self.productName(row, in: check) }
            }
            XCTAssertEqual(decoded, fromTables, "\(userID)'s record holds what the tables hold")
            XCTAssertEqual(record, UserFactsRecord.encode(fromTables) { try? self.productNameRow($0, in: check) },
                           "\(userID)'s record is the one the writer builds")
        }
    }

    /// The `product_names` text of `row`, as a reader resolves a record's reference.
    private func productName(_ row: Int64, in db: Connection) throws -> String? {
        try db.scalarString("SELECT name FROM product_names WHERE id = \(row)")
    }

    /// The `product_names` row of `name`, as the writer looks it up to encode a record.
    private func productNameRow(_ name: String, in db: Connection) throws -> Int64? {
        let find = try db.prepare("SELECT id FROM product_names WHERE name = ?")
        find.bind(name, at: 1)
        defer { find.reset() }
        return try find.step() ? find.int64(at: 0) : nil
    }

    /// Instants the old records' users are judged at: before, inside and after their periods.
    static let oldRecordInstants: [Int64] = [1_785_000_000_000, 1_791_000_000_000, 1_797_000_000_000, 1_800_000_000_000]

    /// Bytes the format-1 encoder wrote (68584a3's bench seed, user u999999).
    static let version1u999999 = "01090D313030303030303939393939390B70726F2E6D6F6E74686C79076772702E70726F0F3330303030"
        + "30303939393939392D30095055524348415345440D333030303030303939393939390F33303030303030393939393939"
        + "2D310D32303030303030393939393939"
        + "0F333030303030303939393939392D32030100000188ABDBABF96788ABDBABF96788CBD1D38C68030405000000"
        + "0105000188CBD1D38C6888ABDBABF96788EBC7FB9F680307050000000107000188EBC7FB9F6888ABDBABF967888BBEA3B36803"
        + "0905000000010800020288ABB4CBC668"
    /// Bytes the format-2 encoder wrote (0c33037's bench seed, users u0 and u1).
    static let version2u0 = "020981DAC4091670726F2E6D6F6E74686C790E6772702E70726F1433303030303030302D30125055524348"
        + "41534544818ECE1C1433303030303030302D3181B489131433303030303030302D320301000001B6C38FA99F68008090A9FA13"
        + "030405000000010500018090A9FA13008090A9FA13030705000000010700018090A9FA13008090A9FA13030905000000010100"
        + "02B6D394F0C768"
    static let version2u1 = "020983DAC4091670726F2E6D6F6E74686C790E6772702E70726F1433303030303030312D30125055524348"
        + "41534544838ECE1C1433303030303030312D3183B489131433303030303030312D320301000001B6D3BBD0FA670080A0F6A713"
        + "0304050000000105000180A0F6A7130080A0F6A7130307050000000107000180A0F6A7130080A0F6A713030905000000010800"
        + "02B6D394F0C76802"

    /// The facts those records hold (the removed decoders' tests held each record equal to them).
    static let oldRecordFacts: [(String, UserFacts)] = [
        ("u999999", benchFacts(chain: "1000000999999", ids: ["3000000999999", "2000000999999"],
                               webOrder: "3000000999999",
                               purchases: [1_785_812_708_036, 1_788_404_708_036, 1_790_996_708_036],
                               period: 2_592_000_000, active: false, signedDateMs: 1_796_180_708_036)),
        ("u0", benchFacts(chain: "10000000", ids: ["30000000", "20000000"], webOrder: "30000000",
                          purchases: [1_790_910_263_515, 1_793_588_663_515, 1_796_267_063_515],
                          period: 2_678_400_000, active: true, signedDateMs: 1_796_353_463_515)),
        ("u1", benchFacts(chain: "10000001", ids: ["30000001", "20000001"], webOrder: "30000001",
                          purchases: [1_785_985_463_515, 1_788_577_463_515, 1_791_169_463_515],
                          period: 2_592_000_000, active: false, signedDateMs: 1_796_353_463_515)),
    ]

    /// A bench user's facts: three monthly transactions of one chain and its renewal info.
    private static func benchFacts(
        chain: String, ids: [String], webOrder: String, purchases: [Int64], period: Int64, active: Bool,
        signedDateMs: Int64
    ) -> UserFacts {
        let transactions = zip([chain] + ids, purchases).enumerated().map { renewal, pair in
            Transaction(
                transactionID: pair.0, originalTransactionID: chain, productID: "pro.monthly",
                purchaseDateMs: pair.1, originalPurchaseDateMs: purchases[0], expiresDateMs: pair.1 + period,
                subscriptionGroupIdentifier: "grp.pro", webOrderLineItemID: "\(webOrder)-\(renewal)",
                inAppOwnershipType: "PURCHASED")
        }
        let info = RenewalInfo(originalTransactionID: chain, autoRenewStatus: active, autoRenewProductID: "pro.monthly",
                               expirationIntent: active ? nil : 1, signedDateMs: signedDateMs)
        return UserFacts(transactions: transactions, renewalInfos: [chain: info])
    }
}
