import EntitlementPorts
import Entitlements
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// FactsRecorder stores each product and group id once per write (``FactsRecorder/namesStoredThisWrite``)
/// and forgets them as the next write starts: a name a rolled-back write stored is gone.
final class ProductNameMemoTests: StoreTestCase {
    private func recorder() throws -> (Connection, FactsRecorder<Connection>) {
        let db = try Connection(path: databasePath)
        try Schema.migrate(db, nowMs: 1)
        return (db, try FactsRecorder(db: db, transferPolicy: .transfer, clock: { 1_700_000_000_000 }))
    }

    func testANameStoredByARolledBackWriteIsStoredAgainByTheNext() throws {
        let (db, recorder) = try recorder()
        defer { db.close() }
        let write = Fixture.receipt("alice", [Fixture.subscription("t1", chain: "t1", product: "p.new")])
        var users = Set<ExactID>()
        try db.execute("BEGIN IMMEDIATE")
        _ = try recorder.record(write, affectedUsers: &users)
        try db.execute("ROLLBACK")
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM product_names"), 0)
        try db.execute("BEGIN IMMEDIATE")
        _ = try recorder.record(write, affectedUsers: &users)
        try db.execute("COMMIT")
        XCTAssertEqual(try db.scalarString("""
            SELECT group_concat(name, ' ') FROM (SELECT name FROM product_names ORDER BY name)
            """), "group p.new")
    }

    func testOneWriteStoresEachNameOnceAndEveryTransactionReadsItsOwn() throws {
        let (db, recorder) = try recorder()
        defer { db.close() }
        // Canonically equal to "K.monthly" (U+212A KELVIN SIGN) but other bytes: its own row.
        let write = Fixture.receipt("alice", [
            Fixture.subscription("t1", chain: "t1", product: "K.monthly"),
            Fixture.subscription("t2", chain: "t1", product: "K.monthly", purchasedAt: 1_702_600_000_000),
            Fixture.subscription("t3", chain: "t3", product: "\u{212A}.monthly"),
        ])
        var users = Set<ExactID>()
        try db.execute("BEGIN IMMEDIATE")
        _ = try recorder.record(write, affectedUsers: &users)
        try db.execute("COMMIT")
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM product_names"), 3)
        let rows = try db.prepare("""
            SELECT t.transaction_id, hex(p.name) FROM transactions t JOIN product_names p ON p.id = t.product_name_rowid
            ORDER BY t.transaction_id
            """)
        var products: [String] = []
        while try rows.step() { products.append(rows.string(at: 0) + " " + rows.string(at: 1)) }
        let hex = { (text: String) in text.utf8.map { String(format: "%02X", $0) }.joined() }
        XCTAssertEqual(products, ["t1 " + hex("K.monthly"), "t2 " + hex("K.monthly"), "t3 " + hex("\u{212A}.monthly")])
    }
}
