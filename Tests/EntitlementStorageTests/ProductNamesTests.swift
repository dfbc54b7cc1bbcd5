import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import TestSupport
import XCTest

/// Migration 18 (product_names): product, group and auto-renew product ids become references
/// to one row per distinct name. Every text reads back byte for byte (Unicode-equivalent names
/// with different bytes stay two names), NULL stays NULL, and writes after the upgrade add a
/// name once.
final class ProductNamesTests: StoreTestCase {
    private var version17Path: String { directory + "/version17.sqlite" }
    private let composed = "caf\u{E9}"
    private let decomposed = "cafe\u{301}"

    /// A file as a version-17 binary left it (migrations 1-17, text columns, no records, so
    /// facts are read from the tables).
    private func createVersion17File() throws {
        try createFile(at: version17Path, version: 17, rows: """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1), (2, 'bob', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                VALUES (1, '1000', 1, 1), (2, '2000', 2, 1);
            INSERT INTO transactions (id, transaction_id, chain_rowid, product_id, purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                is_upgraded, subscription_group_identifier, in_app_ownership_type, environment)
                VALUES (1, '1000', 1, 'pro.monthly', 10, 10, 20, 0, 0, 0, 'grp.pro', '', 0),
                       (2, '1001', 1, 'pro.monthly', 20, 10, 30, 0, 0, 0, 'grp.pro', '', 0),
                       (3, '2000', 2, '\(composed)', 10, 10, 40, 0, 0, 0, NULL, 'F', 1),
                       (4, '2001', 2, '\(decomposed)', 40, 10, 50, 0, 0, 0, 'pro.monthly', NULL, 1);
            INSERT INTO renewal_infos (chain_rowid, auto_renew_status, auto_renew_product_id,
                is_in_billing_retry_period, expiration_intent, signed_date_ms)
                VALUES (1, 1, 'pro.yearly', 0, NULL, 5), (2, 0, NULL, 1, 2, 6);
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id,
                transaction_id, original_transaction_id, expires_at_ms, environment, source,
                apple_notification_type, transaction_rowid)
                VALUES ('renewal:1001', 1, 2, 20, NULL, NULL, NULL, 30, 0, 0, '', 2),
                       ('expired:9999', 1, 3, 30, 'pro.monthly', '9999', '1000', 30, 0, 1, '', NULL);
            """)
    }

    private func transaction(_ id: String, _ chain: String, _ product: String, at purchase: Int64, expires: Int64,
                             group: String?, ownership: String?, _ environment: Environment) -> Transaction {
        Transaction(transactionID: id, originalTransactionID: chain, productID: product, purchaseDateMs: purchase,
                    originalPurchaseDateMs: 10, expiresDateMs: expires, subscriptionGroupIdentifier: group,
                    inAppOwnershipType: ownership, environment: environment)
    }

    private func names(_ path: String) throws -> [String] {
        let db = try Connection(path: path)
        defer { db.close() }
        let rows = try db.prepare("SELECT name FROM product_names ORDER BY id")
        defer { rows.reset() }
        var names: [String] = []
        while try rows.step() { names.append(rows.string(at: 0)) }
        return names
    }

    func testAVersion17FileReadsBackByteForByteAndNamesAreStoredOnce() async throws {
        try createVersion17File()
        let store = try EntitlementStore(path: version17Path, configuration: .init())
        store.start()
        let alice = try store.facts(userID: "alice")
        XCTAssertEqual(alice.transactions.sorted { $0.transactionID < $1.transactionID }, [
            transaction("1000", "1000", "pro.monthly", at: 10, expires: 20, group: "grp.pro", ownership: "PURCHASED",
                        .production),
            transaction("1001", "1000", "pro.monthly", at: 20, expires: 30, group: "grp.pro", ownership: "PURCHASED",
                        .production),
        ])
        XCTAssertEqual(alice.renewalInfos, ["1000": RenewalInfo(
            originalTransactionID: "1000", autoRenewStatus: true, autoRenewProductID: "pro.yearly", signedDateMs: 5)])
        let bob = try store.facts(userID: "bob")
        let bobs = bob.transactions.sorted { $0.transactionID < $1.transactionID }
        XCTAssertEqual(bobs, [
            transaction("2000", "2000", composed, at: 10, expires: 40, group: nil, ownership: "FAMILY_SHARED",
                        .sandbox),
            transaction("2001", "2000", decomposed, at: 40, expires: 50, group: "pro.monthly", ownership: nil,
                        .sandbox),
        ])
        XCTAssertEqual(bobs.map { Array($0.productID.utf8) }, [Array(composed.utf8), Array(decomposed.utf8)],
                       "Unicode-equivalent names keep their own bytes")
        XCTAssertEqual(bob.renewalInfos["2000"]?.autoRenewProductID, nil)
        // History through the pointer and the product filter read the name.
        let monthly = try store.history(userID: "alice", productID: "pro.monthly", pageSize: 0, pageToken: nil)
        XCTAssertEqual(monthly.events.map(\.eventID), ["expired:9999", "renewal:1001"])
        XCTAssertEqual(monthly.events.map(\.productID), ["pro.monthly", "pro.monthly"])

        // A write names a stored product and a new group: one new name, stored once however
        // often it is written; a new event about it still points at its transaction.
        let renewal = transaction("1002", "1000", "pro.monthly", at: 30, expires: 40, group: "grp.new",
                                  ownership: "PURCHASED", .production)
        _ = try await store.write(Fixture.receipt("alice", [renewal]))
        _ = try await store.write(Fixture.receipt("alice", [renewal]))
        XCTAssertTrue(try store.facts(userID: "alice").transactions.contains(renewal))
        let newest = try store.history(userID: "alice", productID: "pro.monthly", pageSize: 1, pageToken: nil)
        XCTAssertEqual(newest.events.map(\.eventID), ["renewal:1002"])
        await store.close()

        XCTAssertEqual(try names(version17Path).sorted(),
                       ["grp.new", "grp.pro", "pro.monthly", "pro.yearly", composed, decomposed].sorted())
        let db = try Connection(path: version17Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM history_events WHERE transaction_rowid IS NOT NULL"),
                       2, "renewal:1002 points at its transaction")
        XCTAssertEqual(try db.scalarInt64("""
            SELECT count(*) FROM pragma_table_info('transactions')
            WHERE name IN ('product_id', 'subscription_group_identifier')
            """), 0)
    }
}
