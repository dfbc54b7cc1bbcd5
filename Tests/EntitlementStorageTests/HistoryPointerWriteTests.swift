import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// The writer binds a new event's pointer itself when the event names, byte for byte, the
/// transaction it was derived from (``HistoryPointerTarget``), and uses the general insert's
/// lookup otherwise: each event must be stored exactly as the lookup alone would store it.
final class HistoryPointerWriteTests: StoreTestCase {
    /// (event id, transaction_rowid, product_id, transaction_id, original_transaction_id) of
    /// every stored event, and each transaction's row by its id.
    private func rows() throws -> (events: [String: [String]], transactionRows: [String: String]) {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let events = try db.prepare("""
            SELECT \(Connection.historyEventIDText("event_id")), COALESCE(transaction_rowid, '-'),
                COALESCE(product_id, '-'), COALESCE(transaction_id, '-'), COALESCE(original_transaction_id, '-')
            FROM history_events
            """)
        var byEvent: [String: [String]] = [:]
        while try events.step() { byEvent[events.string(at: 0)] = (1...4).map { events.string(at: $0) } }
        let transactions = try db.prepare("SELECT transaction_id, id FROM transactions")
        var rows: [String: String] = [:]
        while try transactions.step() { rows[transactions.string(at: 0)] = transactions.string(at: 1) }
        return (byEvent, rows)
    }

    func testEventsPointAtTheRowTheyNameAndOnlyThere() async throws {
        let store = try openStore()
        // Chains of three transactions each, so transaction rows and chain rows differ.
        _ = try await store.write(Fixture.receipt("alice", [
            Fixture.subscription("a1", chain: "a1", purchasedAt: 1_700_000_000_000),
            Fixture.subscription("a2", chain: "a1", purchasedAt: 1_702_600_000_000),
            Fixture.subscription("b1", chain: "b1", product: "com.example.yearly"),
            Fixture.subscription("a3", chain: "a1", purchasedAt: 1_705_200_000_000),
        ]))
        // A stored transaction sent again with a product spelled differently and a refund:
        // the event names the incoming product, which the stored row does not hold.
        _ = try await store.write(Fixture.receipt("alice", [
            Fixture.subscription("a2", chain: "a1", product: "COM.EXAMPLE.MONTHLY", purchasedAt: 1_702_600_000_000,
                                 cancelledAt: 1_703_000_000_000),
        ]))
        // A refund on the stored spelling: its event points at the stored row.
        _ = try await store.write(Fixture.receipt("alice", [
            Fixture.subscription("a3", chain: "a1", purchasedAt: 1_705_200_000_000, cancelledAt: 1_706_000_000_000),
        ]))
        // Chain ids that Swift's == takes as equal (U+212A KELVIN SIGN decomposes to "K") but
        // SQL's = does not: two chains, each transaction filed under its own spelling, so each
        // event points at its own row. (Keyed by String, the writer filed k2 under the first
        // spelling's chain, and k2's event had to keep its ids.)
        _ = try await store.write(Fixture.receipt("bob", [
            Fixture.subscription("k1", chain: "\u{212A}1"),
            Fixture.subscription("k2", chain: "K1", purchasedAt: 1_702_600_000_000),
        ]))
        await store.close()

        let (events, transactionRows) = try rows()
        var pointing: [String: String] = [:]
        for (eventID, columns) in events where columns[0] != "-" {
            XCTAssertEqual(columns[1...], ["-", "-", "-"], "\(eventID) points and repeats ids")
            pointing[eventID] = columns[0]
        }
        // Every event about a1, a2 (first copy), a3, b1, k1 and k2 points at that transaction's own row.
        for transactionID in ["a1", "a2", "a3", "b1", "k1", "k2"] {
            let named = pointing.filter { $0.key.contains(transactionID) }
            XCTAssertFalse(named.isEmpty, "no pointing event for \(transactionID): \(events)")
            for (eventID, row) in named {
                XCTAssertEqual(row, transactionRows[transactionID], "\(eventID)")
            }
        }
        let ownIDs = events.filter { $0.value[0] == "-" }
        XCTAssertTrue(ownIDs.contains { $0.value[1...] == ["COM.EXAMPLE.MONTHLY", "a2", "a1"] },
                      "the refund naming another product keeps its ids: \(ownIDs)")
        XCTAssertEqual(ownIDs.count, 1, "only the refund naming another product keeps its ids: \(ownIDs)")
        // Two chains, each named by its own bytes.
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let chainOf = try db.prepare("""
            SELECT c.original_transaction_id FROM transactions t JOIN chains c ON c.id = t.chain_rowid
            WHERE t.transaction_id = ?
            """)
        for (transactionID, chainID) in [("k1", "\u{212A}1"), ("k2", "K1")] {
            chainOf.reset()
            chainOf.bind(transactionID, at: 1)
            XCTAssertTrue(try chainOf.step())
            XCTAssertEqual(Array(chainOf.string(at: 0).utf8), Array(chainID.utf8), "\(transactionID)'s chain")
        }
    }
}
