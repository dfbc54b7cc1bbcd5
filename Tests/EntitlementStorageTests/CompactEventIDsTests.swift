import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// Migration 21 keeps history event ids derived from a canonical transaction id as INTEGERs:
/// every id must read back byte for byte, pages must keep the ids' byte order within a
/// millisecond, and an id must be found (unique, confirmed) whichever form stored it.
final class CompactEventIDsTests: StoreTestCase {
    /// (id, stored as an integer).
    private let table: [(String, Bool)] = [
        ("purchase:0", true), ("purchase:20000001", true), ("renewal:2000000123456789", true), ("refund:7", true),
        ("revoke:7", true), ("product_change:7", true), ("product_change:to:7", true),
        ("renewal:576460752303423487", true), ("renewal:576460752303423488", false),
        ("renewal:123456789012345678", true), ("renewal:1234567890123456789", false),
        ("purchase:", false), ("purchase:007", false), ("purchase:+7", false), ("purchase:-7", false),
        ("purchase:7 ", false), ("purchase: 7", false), ("purchase:7a", false), ("Purchase:7", false),
        ("purchase7", false), ("purchase:\u{661}", false), ("purchase:7\u{0}", false), ("refund:7:1700", false),
        ("product_change:to:", false), ("ownership_transfer:7:bob:5", false), ("v2:0b7f-uuid", false), ("", false),
    ]

    func testTheMigrationTheWriterAndTheReaderAgreeOnEveryIDsForm() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try CompactEventID.define(on: db)
        let check = try db.prepare("""
            SELECT typeof(\(CompactEventID.storedSQL("?1"))), \(CompactEventID.storedSQL("?1")) IS ?2,
                typeof(?2), CAST(\(Connection.historyEventIDText("?2")) AS BLOB) = CAST(?1 AS BLOB)
            """)
        for (id, isNumber) in table {
            XCTAssertEqual(CompactEventID.value(id) != nil, isNumber, id)
            if let value = CompactEventID.value(id) {
                XCTAssertEqual(Array(CompactEventID.text(value).utf8), Array(id.utf8), id)
            }
            check.bind(id, at: 1)
            Connection.bindHistoryEventID(id, at: 2, of: check)
            XCTAssertTrue(try check.step())
            XCTAssertEqual(check.string(at: 0), isNumber ? "integer" : "text", "the migration's SQL, \(id)")
            XCTAssertTrue(check.bool(at: 1), "the migration stores what the writer binds, \(id)")
            XCTAssertEqual(check.string(at: 2), isNumber ? "integer" : "text", "the writer, \(id)")
            XCTAssertTrue(check.bool(at: 3), "read back byte for byte, \(id)")
            check.reset()
        }
    }

    private var version20Path: String { directory + "/version20.sqlite" }
    private let sameInstant: Int64 = 200
    /// Alice's events at one instant: integers and text mixed, numeric order unlike byte order.
    private let atOneInstant = [
        "renewal:9", "renewal:10", "refund:10", "refund:10:200", "product_change:9", "product_change:to:10",
        "purchase:007", "renewal:576460752303423488", "renewal:576460752303423487", "v2:abc",
        "ownership_transfer:1000:bob:200",
    ]

    /// A version-20 file: alice owns chain 1000 (transaction 1000, row 10, its purchase event
    /// pointing at it) and has ``atOneInstant``'s events; chain 2000 has no owner yet, its
    /// transaction's purchase event waits in pending_events.
    private func createVersion20File() throws {
        var rows = """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms) VALUES (1, '1000', 1, 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms) VALUES (2, '2000', NULL, NULL);
            INSERT INTO product_names (id, name) VALUES (1, 'p');
            INSERT INTO transactions (id, transaction_id, chain_rowid, product_name_rowid, purchase_date_ms,
                original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period, is_upgraded,
                in_app_ownership_type, environment)
            VALUES (10, 1000, 1, 1, 100, 100, 5000, 0, 0, 0, '', 1), (20, 2000, 2, 1, 150, 150, 5000, 0, 0, 0, '', 1);
            INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms, environment,
                source, apple_notification_type, transaction_rowid)
            VALUES ('purchase:1000', 1, 1, 100, 5000, 1, 0, '', 10);
            INSERT INTO pending_events (event_id, chain_rowid, kind, occurred_at_ms, product_id, transaction_id,
                original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
            VALUES ('purchase:2000', 2, 1, 150, 'p', '2000', '2000', 5000, 1, 2, 'SUBSCRIBED');

            """
        for id in atOneInstant {
            rows += """
                INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
                    original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
                VALUES ('\(id)', 1, 2, \(sameInstant), 'p', '10', '1000', 5000, 1, 0, '');

                """
        }
        try createFile(at: version20Path, version: 20, rows: rows)
    }

    /// Every page of alice's history, `size` events at a time, following the cursors (at most
    /// 30 pages: a cursor that does not advance must fail the test, not hang it).
    private func pages(_ store: EntitlementStore, size: Int) throws -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        var token: String?
        for _ in 0..<30 {
            let page = try store.history(userID: "alice", productID: nil, pageSize: size, pageToken: token)
            events += page.events
            if page.nextPageToken.isEmpty { return events }
            token = page.nextPageToken
        }
        XCTFail("the cursor did not reach the end in 30 pages of \(size)")
        return events
    }

    func testAVersion20FileKeepsEveryEventItsOrderAndItsUniqueness() async throws {
        try createVersion20File()
        let store = try EntitlementStore(path: version20Path, configuration: .init())
        store.start()
        // Newest first; one instant's events by their ids' bytes, descending, as version 20 paged.
        let expected = atOneInstant.sorted { $1.utf8.lexicographicallyPrecedes($0.utf8) } + ["purchase:1000"]
        for size in [1, 3, 100] {
            let events = try pages(store, size: size)
            XCTAssertEqual(events.map { Array($0.eventID.utf8) }, expected.map { Array($0.utf8) }, "pages of \(size)")
            XCTAssertEqual(events.map(\.occurredAtMs), expected.map { $0 == "purchase:1000" ? 100 : sameInstant })
            XCTAssertEqual(Set(events.map(\.transactionID)), ["10", "1000"])
        }
        // Bob binds chain 2000: its waiting purchase joins his history, once.
        let bound = try await store.write(Fixture.receipt("bob", [Fixture.subscription("2000", chain: "2000")]))
        XCTAssertEqual(bound.newEvents, 1)
        let bobs = try store.history(userID: "bob", productID: nil, pageSize: 10, pageToken: nil).events
        XCTAssertEqual(bobs.map(\.eventID), ["purchase:2000"])
        XCTAssertEqual(bobs.first?.appleNotificationType, "SUBSCRIBED")
        await store.close()

        let db = try Connection(path: version20Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM history_events"), Int64(atOneInstant.count + 2))
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM history_events WHERE typeof(event_id) = 'integer'"),
                       8, "purchase:1000, the adopted purchase:2000 and six of the instant's")
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))

        // The writer finds each upgraded event whichever form the migration gave it: a second
        // insert adds nothing, a confirmation reaches it.
        let recorder = try FactsRecorder(db: db, transferPolicy: .transfer, clock: { 1 })
        for id in atOneInstant + ["purchase:1000", "purchase:2000"] {
            XCTAssertTrue(try recorder.isRecorded(id), id)
            let again = HistoryEvent(eventID: id, kind: .renewal, occurredAtMs: 300, productID: "p",
                                     transactionID: "10", originalTransactionID: "1000", environment: .sandbox,
                                     source: .receipt)
            XCTAssertFalse(try recorder.insert(again, userRow: 1), "inserted twice: \(id)")
        }
        XCTAssertFalse(try recorder.isRecorded("renewal:11"))
        try recorder.confirm(HistoryConfirmation(eventIDs: ["renewal:9", "purchase:007"], kind: .purchase,
                                                 appleNotificationType: "SUBSCRIBED"))
        XCTAssertEqual(try db.scalarString("""
            SELECT group_concat(\(Connection.historyEventIDText("event_id")), ' ') FROM history_events
            WHERE apple_notification_type = 'SUBSCRIBED' AND kind = \(StorageCodes.code(HistoryEvent.Kind.purchase))
                AND user_rowid = 1
            """)?.split(separator: " ").sorted(), ["purchase:007", "renewal:9"])
    }
}
