import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// Migration 20 keeps canonical decimal transaction and web order ids as INTEGERs: every id must
/// read back byte for byte, and every statement must still find a transaction by its id (an
/// integer never equals text, so one bound the wrong way finds nothing).
final class DecimalIDsTests: StoreTestCase {
    /// (id, stored as an integer): only what ``DecimalText`` calls canonical.
    private let table: [(String, Bool)] = [
        ("0", true), ("7", true), ("1000", true), ("123456789012345678", true),
        ("00", false), ("007", false), ("+7", false), ("-7", false), (" 7", false), ("7 ", false),
        ("1234567890123456789", false), ("99999999999999999999", false), ("12a", false), ("\u{661}\u{662}", false),
        ("1e3", false), ("0x10", false), ("7.0", false),
    ]

    func testTheMigrationAndTheWriterAgreeOnWhichIDsAreNumbers() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let typeOf = try db.prepare("SELECT typeof(\(Schema.decimalID("?1")))")
        for (id, isNumber) in table {
            XCTAssertEqual(DecimalText.value(id) != nil, isNumber, id)
            Connection.bindDecimalID(id, at: 1, of: typeOf)
            XCTAssertTrue(try typeOf.step())
            XCTAssertEqual(typeOf.string(at: 0), isNumber ? "integer" : "text", "SQL, \(id)")
            typeOf.reset()
            // Bound by the writer: the same type.
            let bound = try db.prepare("SELECT typeof(?1)")
            Connection.bindDecimalID(id, at: 1, of: bound)
            XCTAssertTrue(try bound.step())
            XCTAssertEqual(bound.string(at: 0), isNumber ? "integer" : "text", "Swift, \(id)")
            bound.reset()
        }
    }

    private var version19Path: String { directory + "/version19.sqlite" }

    /// A version-19 file: alice owns chain 1000 with one transaction per id of the table (its
    /// web order id the same text), and one event pointing at each, as that version wrote them.
    private func createVersion19File() throws {
        var rows = """
            INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
            INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms) VALUES (1, '1000', 1, 1);
            INSERT INTO product_names (id, name) VALUES (1, 'p');
            """
        for (index, (id, _)) in table.enumerated() {
            let quoted = "'" + id.replacingOccurrences(of: "'", with: "''") + "'"
            rows += """
                INSERT INTO transactions (id, transaction_id, chain_rowid, product_name_rowid, purchase_date_ms,
                    original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                    is_upgraded, web_order_line_item_id, in_app_ownership_type, environment)
                VALUES (\(10 + index), \(quoted), 1, 1, \(100 + index), 10, \(1_000 + index), 0, 0, 0, \(quoted),
                    '', 1);
                INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms, environment,
                    source, apple_notification_type, transaction_rowid)
                VALUES ('purchase:' || \(quoted), 1, 1, \(100 + index), \(1_000 + index), 1, 0, '', \(10 + index));

                """
        }
        try createFile(at: version19Path, version: 19, rows: rows)
    }

    func testAVersion19FileKeepsEveryIDAndFindsEachTransactionByIt() async throws {
        try createVersion19File()
        let store = try EntitlementStore(path: version19Path, configuration: .init())
        store.start()
        let before = try store.facts(userID: "alice")
        XCTAssertEqual(before.transactions.count, table.count)
        for transaction in before.transactions {
            XCTAssertTrue(transaction.webOrderLineItemID!.hasSameBytes(as: transaction.transactionID))
        }
        XCTAssertEqual(Set(before.transactions.map { Array($0.transactionID.utf8) }),
                       Set(table.map { Array($0.0.utf8) }), "every id byte for byte")
        let history = try store.history(userID: "alice", productID: nil, pageSize: 100, pageToken: nil).events
        XCTAssertEqual(Set(history.map { Array($0.transactionID.utf8) }), Set(table.map { Array($0.0.utf8) }))

        // The same transactions again (a later receipt, each now cancelled): every one is found
        // by its id and updated, none inserted twice (a second insert would break the unique
        // index), and each cancellation is one refund event pointing at its transaction.
        let again = before.transactions.map {
            var transaction = $0
            transaction.cancellationDateMs = $0.purchaseDateMs + 1
            return transaction
        }
        _ = try await store.write(Fixture.receipt("alice", again))
        let after = try store.facts(userID: "alice")
        XCTAssertEqual(after.transactions.count, table.count)
        XCTAssertTrue(after.transactions.allSatisfy { $0.cancellationDateMs == $0.purchaseDateMs + 1 })
        // Apple reverses the refund of a numeric and of a text id: both found, both cleared.
        let reversed = try await store.apply(Fixture.notification("v2:reversal", reversedRefunds: ["7", "007"]))
        XCTAssertEqual(Set(reversed.ownerUserIDs), ["alice"])
        let cleared = try store.facts(userID: "alice").transactions.filter { $0.cancellationDateMs == nil }
        XCTAssertEqual(Set(cleared.map(\.transactionID)), ["7", "007"])
        await store.close()

        let db = try Connection(path: version19Path)
        defer { db.close() }
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), Int64(Schema.migrator.latestVersion))
        for (index, (id, isNumber)) in table.enumerated() {
            let select = try db.prepare("""
                SELECT typeof(transaction_id), typeof(web_order_line_item_id), id FROM transactions
                WHERE transaction_id = ?1
                """)
            Connection.bindDecimalID(id, at: 1, of: select)
            XCTAssertTrue(try select.step(), id)
            XCTAssertEqual(select.string(at: 0), isNumber ? "integer" : "text", id)
            XCTAssertEqual(select.string(at: 1), isNumber ? "integer" : "text", id)
            XCTAssertEqual(select.int64(at: 2), Int64(10 + index), "row id kept")
            select.reset()
        }
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM transactions"), Int64(table.count))
        XCTAssertEqual(try db.scalarInt64("""
            SELECT count(*) FROM history_events WHERE kind = \(StorageCodes.code(HistoryEvent.Kind.refund))
                AND transaction_rowid IS NOT NULL AND transaction_id IS NULL
            """), Int64(table.count))
        XCTAssertEqual(try db.scalarInt64(
            "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'transactions_by_chain'"), 1)
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
    }

    /// The history insert's own lookup (an event the writer has no stored row for, as from a
    /// notification) finds a transaction stored as an integer and points at it.
    func testTheGeneralHistoryInsertPointsAtANumericID() async throws {
        let store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [Fixture.subscription("1000", chain: "1000")]))
        await store.close()
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let transaction = Fixture.subscription("1000", chain: "1000")
        let event = HistoryDerivation.ownershipTransfer(
            originalTransactionID: "1000", productID: transaction.productID, toUserID: "bob", occurredAtMs: 5,
            environment: .sandbox, source: .receipt)
        let insert = try db.prepare(HistoryEvent.insertHistorySQL)
        FactsRecorder<Connection>.bind(event, owner: 1, to: insert)
        try insert.execute()
        XCTAssertEqual(try db.scalarInt64("""
            SELECT transaction_rowid FROM history_events WHERE event_id = '\(event.eventID)'
                AND transaction_id IS NULL
            """), 1)
    }
}
