import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// Migration 22 (`history_events_expiry_through_pointer`): an event pointing at a transaction
/// with the same expiry keeps `expires_at_ms` NULL and reads the transaction's. Every event
/// must read back the expiry it was written with, including one written while its
/// transaction had no expiry yet (0), which a later copy then fills in.
final class PointedExpiryTests: StoreTestCase {
    private func history(_ store: EntitlementStore, _ user: String) throws -> [String: Int64] {
        let events = try store.history(userID: user, productID: nil, pageSize: 100, pageToken: nil).events
        return Dictionary(uniqueKeysWithValues: events.map { ($0.eventID, $0.expiresAtMs) })
    }

    private func storedExpiries(_ path: String) throws -> [String: Int64?] {
        let db = try Connection(path: path)
        defer { db.close() }
        let rows = try db.prepare("""
            SELECT \(Connection.historyEventIDText("event_id")), expires_at_ms FROM history_events
            """)
        var stored: [String: Int64?] = [:]
        while try rows.step() { stored[rows.string(at: 0)] = rows.optionalInt64(at: 1) }
        return stored
    }

    func testTheWriterSharesOnlyAnExpiryTheTransactionKeeps() async throws {
        let store = try openStore()
        var noExpiry = Fixture.subscription("n1", chain: "n1", product: "com.example.lifetime")
        noExpiry.expiresDateMs = nil
        let monthly = Fixture.subscription("m1", chain: "m1")
        _ = try await store.write(Fixture.receipt("alice", [monthly, noExpiry]))
        // A later copy of n1 fills in its expiry (merge fills what is missing); m1 arrives
        // refunded with a later expiry, which the stored row takes (an expiry only moves later):
        // purchase:m1, which read the old expiry through its pointer, gets it written first.
        var filled = noExpiry
        filled.expiresDateMs = 1_800_000_000_000
        var refunded = Fixture.subscription("m1", chain: "m1", cancelledAt: 1_700_000_500_000)
        refunded.expiresDateMs = monthly.expiresDateMs! + 1
        _ = try await store.write(Fixture.receipt("alice", [filled, refunded]))

        XCTAssertEqual(try history(store, "alice"), [
            "purchase:m1": monthly.expiresDateMs!, "purchase:n1": 0, "refund:m1": monthly.expiresDateMs! + 1,
        ])
        await store.close()
        XCTAssertEqual(try storedExpiries(databasePath), [
            "purchase:m1": monthly.expiresDateMs!, "purchase:n1": 0, "refund:m1": nil,
        ], "only the expiry equal to the transaction's current one is shared; a moved one is written out")
    }

    private var version21Path: String { directory + "/version21.sqlite" }

    /// A version-21 file: alice's chain 1000 has transactions 1000 (expires 5000), 1001 (no
    /// expiry) and 1002 (expires 7000), with events pointing at each, and an event about
    /// 1000 that does not point.
    private func createVersion21File() throws {
        try createFile(at: version21Path, version: 21, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms) VALUES (1, '1000', 1, 1);
            INSERT INTO product_names (id, name) VALUES (1, 'p');
            INSERT INTO transactions (id, transaction_id, chain_rowid, product_name_rowid, purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period, is_upgraded,
                in_app_ownership_type, environment)
            VALUES (10, 1000, 1, 1, 100, 100, 5000, 0, 0, 0, '', 1), (11, 1001, 1, 1, 200, 100, NULL, 0, 0, 0, '', 1),
                (12, 1002, 1, 1, 300, 100, 7000, 0, 0, 0, '', 1);
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms, environment,
                source, apple_notification_type, transaction_rowid)
            VALUES (\(CompactEventID.value("purchase:1000")!), 1, 1, 100, 5000, 1, 0, '', 10),
                (\(CompactEventID.value("renewal:1001")!), 1, 2, 200, 0, 1, 0, '', 11),
                (\(CompactEventID.value("refund:1002")!), 1, 3, 400, 6000, 1, 0, '', 12);
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
                original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
            VALUES ('v2:abc', 1, 2, 500, 'p', '1000', '1000', 5000, 1, 2, 'DID_RENEW');
            """)
    }

    func testAVersion21FileReadsEveryExpiryAsBefore() async throws {
        try createVersion21File()
        let expected: [String: Int64] = ["purchase:1000": 5000, "renewal:1001": 0, "refund:1002": 6000, "v2:abc": 5000]
        let store = try EntitlementStore(path: version21Path, configuration: .init())
        store.start()
        XCTAssertEqual(try history(store, "alice"), expected)
        await store.close()

        XCTAssertEqual(try storedExpiries(version21Path), [
            "purchase:1000": nil, "renewal:1001": 0, "refund:1002": 6000, "v2:abc": 5000,
        ])
        let db = try Connection(path: version21Path)
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        // The unique index survives the rebuild.
        XCTAssertThrowsError(try db.execute("""
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms, environment,
                source, apple_notification_type) VALUES ('v2:abc', 1, 2, 600, 1, 1, 2, '')
            """))
        // 1001's expiry filled in later: its renewal still says what it said.
        try db.execute("UPDATE transactions SET expires_date_ms = 9000 WHERE id = 11")
        db.close()
        let reopened = try EntitlementStore(path: version21Path, configuration: .init())
        reopened.start()
        XCTAssertEqual(try history(reopened, "alice"), expected)
        await reopened.close()
    }
}
