import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// Migration 17 (history_events_point_at_transactions): an event that names a stored
/// transaction exactly (same id, product and original transaction id, byte for byte) points at
/// it instead of repeating the three ids; every other event keeps its own. History pages, the
/// product filter and new writes answer as before.
final class HistoryPointerTests: StoreTestCase {
    private var version16Path: String { directory + "/version16.sqlite" }

    /// A file as a version-16 binary left it: the landed migrations 1-16 and rows in that
    /// version's layout (every event with its own three ids).
    private func createVersion16File() throws {
        try createFile(at: version16Path, version: 16, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1), (2, 'bob', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                VALUES (1, '1000', 1, 1), (2, '2000', 2, 1);
            INSERT INTO transactions (id, transaction_id, chain_rowid, product_id, purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                is_upgraded, in_app_ownership_type, environment)
                VALUES (1, '1000', 1, 'pro.monthly', 10, 10, 20, 0, 0, 0, '', 0),
                       (2, '1001', 1, 'pro.monthly', 20, 10, 30, 0, 0, 0, '', 0),
                       (3, '2000', 2, 'pro.yearly', 10, 10, 40, 0, 0, 0, '', 1);
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id,
                transaction_id, original_transaction_id, expires_at_ms, environment, source,
                apple_notification_type)
                VALUES ('purchase:1000', 1, 1, 10, 'pro.monthly', '1000', '1000', 20, 0, 0, ''),
                       ('renewal:1001', 1, 2, 20, 'pro.monthly', '1001', '1000', 30, 1, 2, 'DID_RENEW'),
                       ('auto_renew_disabled:1001:25', 1, 6, 25, 'pro.yearly', '1001', '1000', 30, 0, 2, 'X'),
                       ('expired:9999', 1, 3, 30, 'pro.monthly', '9999', '1000', 30, 0, 1, ''),
                       ('x:1000', 1, 0, 35, 'Pro.Monthly', '1000', '1000', 20, 0, 0, ''),
                       ('purchase:2000', 2, 1, 10, 'pro.yearly', '2000', '2000', 40, 1, 2, 'SUBSCRIBED'),
                       ('revoke:2000', 2, 5, 40, 'pro.yearly', '2000', '1000', 40, 1, 2, 'REVOKE');
            """)
    }

    private func event(_ id: String, _ kind: HistoryEvent.Kind, _ at: Int64, _ product: String, _ transaction: String,
                       _ chain: String, expires: Int64, _ environment: Environment = .production,
                       _ source: HistoryEvent.Source = .receipt, _ type: String = "") -> HistoryEvent {
        HistoryEvent(eventID: id, kind: kind, occurredAtMs: at, productID: product, transactionID: transaction,
                     originalTransactionID: chain, expiresAtMs: expires, environment: environment, source: source,
                     appleNotificationType: type)
    }

    private func history(_ store: EntitlementStore, _ user: String, product: String? = nil) throws -> [HistoryEvent] {
        try store.history(userID: user, productID: product, pageSize: 0, pageToken: nil).events
    }

    func testAVersion16FileAnswersTheSameAndOnlyExactMatchesPoint() async throws {
        try createVersion16File()
        let store = try EntitlementStore(path: version16Path, configuration: .init())
        store.start()
        let alice = [
            event("x:1000", .other, 35, "Pro.Monthly", "1000", "1000", expires: 20),
            event("expired:9999", .expired, 30, "pro.monthly", "9999", "1000", expires: 30, .production,
                  .notificationV1),
            event("auto_renew_disabled:1001:25", .autoRenewDisabled, 25, "pro.yearly", "1001", "1000", expires: 30,
                  .production, .notificationV2, "X"),
            event("renewal:1001", .renewal, 20, "pro.monthly", "1001", "1000", expires: 30, .sandbox,
                  .notificationV2, "DID_RENEW"),
            event("purchase:1000", .purchase, 10, "pro.monthly", "1000", "1000", expires: 20),
        ]
        XCTAssertEqual(try history(store, "alice"), alice)
        XCTAssertEqual(try history(store, "alice", product: "pro.monthly"),
                       alice.filter { $0.productID == "pro.monthly" })
        XCTAssertEqual(try history(store, "alice", product: "pro.yearly"), [alice[2]])
        XCTAssertEqual(try history(store, "bob"), [
            event("revoke:2000", .revoke, 40, "pro.yearly", "2000", "1000", expires: 40, .sandbox, .notificationV2,
                  "REVOKE"),
            event("purchase:2000", .purchase, 10, "pro.yearly", "2000", "2000", expires: 40, .sandbox,
                  .notificationV2, "SUBSCRIBED"),
        ])
        // A new event about a stored transaction points at it from the start.
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1002", chain: "1000",
                                                                                  product: "pro.monthly")]))
        let newest = try XCTUnwrap(try history(store, "alice").first { $0.transactionID == "1002" })
        XCTAssertEqual([newest.productID, newest.originalTransactionID], ["pro.monthly", "1000"])
        await store.close()

        let db = try Connection(path: version16Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertEqual(try db.scalarString("""
            SELECT group_concat(id, ' ') FROM (SELECT \(Connection.historyEventIDText("event_id")) AS id
                FROM history_events WHERE transaction_rowid IS NOT NULL AND product_id IS NULL
                    AND transaction_id IS NULL AND original_transaction_id IS NULL ORDER BY id)
            """), ["purchase:1000", "purchase:2000", "renewal:1001", newest.eventID].sorted().joined(separator: " "))
        XCTAssertEqual(try db.scalarInt64("""
            SELECT count(*) FROM history_events WHERE transaction_rowid IS NULL
                AND product_id IS NOT NULL AND transaction_id IS NOT NULL AND original_transaction_id IS NOT NULL
            """), 4, "every other event keeps its own three ids")
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
    }

    /// The new statements keep the clustered key's range search, and adding the joins added no
    /// sort (the two plans HistoryIndexTests checks, plus the change recorder's newest event)
    /// beyond migration 21's, of one millisecond's events by id.
    func testTheNewestEventOfAChainIsStillARangeOfTheUsersKey() async throws {
        try await openStore().close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let sql = ChangeRecorderSQL.newestEventSQL(eventID: Connection.historyEventIDText("h.event_id"))
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + sql)
        var details: [String] = []
        while try plan.step() { details.append(plan.string(at: 3)) }
        XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH h USING PRIMARY KEY (user_rowid=?") }, "\(details)")
        XCTAssertFalse(details.contains("USE TEMP B-TREE FOR ORDER BY"), "\(details)")
        XCTAssertTrue(details.contains { $0.hasPrefix("SEARCH t USING INTEGER PRIMARY KEY") }, "\(details)")
    }
}
