import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// `chains_decimal_ids` keeps canonical decimal chain ids as INTEGERs: every chain id must read
/// back byte for byte, and every statement that finds a chain by its id must still find it (an
/// integer never equals text: a lookup bound the wrong way finds nothing, and the writer then
/// inserts the chain a second time, which the unique index cannot refuse).
final class ChainDecimalIDsTests: StoreTestCase {
    /// (chain id, stored as an integer): only what ``DecimalText`` calls canonical.
    private let table: [(String, Bool)] = [
        ("0", true), ("1000", true), ("123456789012345678", true), ("2000000123456789", true),
        ("007", false), ("+7", false), ("1234567890123456789", false), ("12a", false), ("\u{661}\u{662}", false),
    ]

    private var version21Path: String { directory + "/version21.sqlite" }
    private let product = "com.example.monthly"

    /// A version-21 file: alice owns one chain per id of the table, each with one transaction
    /// and a purchase event pointing at it, as that version wrote them.
    private func createVersion21File() throws {
        var rows = """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
            INSERT INTO product_names (id, name) VALUES (1, '\(product)');
            """
        for (index, (id, _)) in table.enumerated() {
            let quoted = "'" + id.replacingOccurrences(of: "'", with: "''") + "'"
            rows += """
                INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                VALUES (\(1 + index), \(quoted), 1, 1);
                INSERT INTO transactions (id, transaction_id, chain_rowid, product_name_rowid, purchase_date_ms,
                    original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                    is_upgraded, in_app_ownership_type, environment)
                VALUES (\(10 + index), 't\(index)', \(1 + index), 1, \(100 + index), 10, \(1_000 + index), 0, 0, 0,
                    '', 1);
                INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms, environment,
                    source, apple_notification_type, transaction_rowid)
                VALUES ('purchase:t\(index)', 1, 1, \(100 + index), \(1_000 + index), 1, 0, '', \(10 + index));

                """
        }
        try createFile(at: version21Path, version: 21, rows: rows)
    }

    func testAVersion21FileKeepsEveryChainIDAndFindsEachChainByIt() async throws {
        try createVersion21File()
        let store = try EntitlementStore(path: version21Path, configuration: .init())
        store.start()
        let ids = Set(table.map { Array($0.0.utf8) })
        XCTAssertEqual(Set(try store.facts(userID: "alice").transactions.map { Array($0.originalTransactionID.utf8) }),
                       ids, "every chain id byte for byte")

        // A later receipt renews every chain and a notification brings each chain's renewal
        // info: each chain is found by its id, none is inserted again.
        let renewals = table.enumerated().map { index, entry in
            Fixture.subscription("n\(index)", chain: entry.0, product: product, purchasedAt: 2_000 + Int64(index))
        }
        _ = try await store.write(Fixture.receipt("alice", renewals))
        let infos = table.map { RenewalInfo(originalTransactionID: $0.0, autoRenewStatus: false, signedDateMs: 5) }
        let applied = try await store.apply(Fixture.notification("v2:renewal-infos", renewals: infos))
        XCTAssertEqual(Set(applied.ownerUserIDs), ["alice"])
        let facts = try store.facts(userID: "alice")
        XCTAssertEqual(facts.transactions.count, 2 * table.count)
        XCTAssertEqual(Set(facts.renewalInfos.keys.map { Array($0.utf8) }), ids)
        let history = try store.history(userID: "alice", productID: nil, pageSize: 100, pageToken: nil).events
        XCTAssertEqual(Set(history.map { Array($0.originalTransactionID.utf8) }), ids)
        await store.close()

        let db = try Connection(path: version21Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM chains"), Int64(table.count))
        let select = try db.prepare(
            "SELECT typeof(original_transaction_id), id FROM chains WHERE original_transaction_id = ?1")
        for (index, (id, isNumber)) in table.enumerated() {
            Connection.bindDecimalID(id, at: 1, of: select)
            XCTAssertTrue(try select.step(), id)
            XCTAssertEqual(select.string(at: 0), isNumber ? "integer" : "text", id)
            XCTAssertEqual(select.int64(at: 1), Int64(1 + index), "row id kept")
            select.reset()
        }
        XCTAssertEqual(try db.scalarInt64(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'chains_by_user'"), 1)
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
    }

    /// The change recorder names a change's cause by the newest event of the chain, asked for by
    /// the chain id as text: it must find the event of a chain stored as an integer too.
    func testTheNewestEventOfAChainIsFoundByItsTextID() async throws {
        let store = try openStore()
        let transactions = table.map { Fixture.subscription($0.0, chain: $0.0, product: product) }
        _ = try await store.write(Fixture.receipt("alice", transactions))
        await store.close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let eventID = Connection.historyEventIDText("h.event_id")
        let find = try db.prepare(ChangeRecorderSQL.newestEventSQL(eventID: eventID))
        for (id, _) in table {
            find.bind(Int64(1), at: 1)
            find.bind(id, at: 2)
            XCTAssertTrue(try find.step(), id)
            XCTAssertEqual(find.string(at: 0), "purchase:" + id, id)
            find.reset()
        }
    }
}
