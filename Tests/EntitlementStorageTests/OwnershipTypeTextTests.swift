import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// Migration 15 stores `in_app_ownership_type` as ``OwnershipTypeText``: every value Apple may
/// send must come back exactly, from new rows and from rows an older version wrote.
final class OwnershipTypeTextTests: StoreTestCase {
    /// (ownership type, stored text): the two known names shortened, everything else marked.
    private let table: [(String?, String?)] = [
        (nil, nil),
        ("PURCHASED", ""),
        ("FAMILY_SHARED", "F"),
        ("", "="),
        ("F", "=F"),
        ("P", "=P"),
        ("=", "=="),
        ("=x", "==x"),
        ("purchased", "=purchased"),
        ("FAMILY_SHARED ", "=FAMILY_SHARED "),
        ("ÜNKNOWN", "=ÜNKNOWN"),
    ]

    func testEveryValueMapsToItsTextAndBack() {
        for (ownership, stored) in table {
            XCTAssertEqual(OwnershipTypeText.stored(ownership), stored, "\(ownership ?? "nil")")
            XCTAssertEqual(OwnershipTypeText.ownershipType(stored: stored), ownership, "\(stored ?? "nil")")
        }
        // Texts the mapping never writes (no marker) read as themselves.
        XCTAssertEqual(OwnershipTypeText.ownershipType(stored: "X"), "X")
    }

    private var version14Path: String { directory + "/version14.sqlite" }

    /// A version-14 file (the landed migrations 1-14) holding one user whose chain has one
    /// transaction per ownership value of the table, written as names; no read-model record,
    /// so the store answers from the tables.
    private func createVersion14File() throws {
        let db = try Connection(path: version14Path)
        defer { db.close() }
        try db.execute("PRAGMA journal_mode = WAL")
        try Migrator(Array(Schema.migrator.migrations.prefix(14))).migrate(db, nowMs: 1)
        try db.execute("""
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms) VALUES (1, '1000', 1, 1);
            """)
        for (index, (ownership, _)) in table.enumerated() {
            let insert = try db.prepare("""
                INSERT INTO transactions (id, transaction_id, chain_rowid, product_id, purchase_date_ms,
                    original_purchase_date_ms, is_trial_period, is_in_intro_offer_period, is_upgraded,
                    in_app_ownership_type, environment)
                VALUES (?, ?, 1, 'p', ?, 10, 0, 0, 0, ?, 1)
                """)
            insert.bind(Int64(10 + index), at: 1)
            insert.bind("\(1000 + index)", at: 2)
            insert.bind(Int64(10 + index), at: 3)
            insert.bind(ownership, at: 4)
            try insert.execute()
        }
    }

    func testAVersion14FileKeepsEveryOwnershipTypeAndRowID() async throws {
        try createVersion14File()
        let store = try EntitlementStore(path: version14Path, configuration: .init())
        store.start()
        let byID = Dictionary(uniqueKeysWithValues: try store.facts(userID: "alice").transactions.map {
            ($0.transactionID, $0.inAppOwnershipType)
        })
        XCTAssertEqual(byID.count, table.count)
        for (index, (ownership, _)) in table.enumerated() {
            XCTAssertEqual(byID["\(1000 + index)"], .some(ownership), "transaction \(1000 + index)")
        }
        // A write after the upgrade: a known name, stored short, read back whole.
        var shared = Fixture.subscription("2000", chain: "2000")
        shared.inAppOwnershipType = "FAMILY_SHARED"
        _ = try await store.write(Fixture.receipt("bob", [shared]))
        XCTAssertEqual(try store.facts(userID: "bob").transactions.map(\.inAppOwnershipType), ["FAMILY_SHARED"])
        await store.close()

        let db = try Connection(path: version14Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        for (index, (_, stored)) in table.enumerated() {
            let select = try db.prepare("SELECT id, in_app_ownership_type FROM transactions WHERE transaction_id = ?")
            Connection.bindDecimalID("\(1000 + index)", at: 1, of: select)
            XCTAssertTrue(try select.step())
            XCTAssertEqual(select.int64(at: 0), Int64(10 + index), "row id kept")
            XCTAssertEqual(select.optionalString(at: 1), stored, "transaction \(1000 + index)")
            select.reset()
        }
        XCTAssertEqual(try db.scalarString(
            "SELECT in_app_ownership_type FROM transactions WHERE transaction_id = 2000"), "F",
            "a canonical decimal id is stored as an integer (migration 20)")
        XCTAssertEqual(try db.scalarInt64(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'transactions_by_chain'"), 1)
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
    }
}
