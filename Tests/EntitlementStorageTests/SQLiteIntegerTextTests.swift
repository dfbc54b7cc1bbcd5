@testable import SQLite
import XCTest

/// ``Statement/string(at:)`` writes an INTEGER column's text itself: it must be the text SQLite
/// would have given (its `CAST(x AS TEXT)`), for every sign and length.
final class SQLiteIntegerTextTests: StoreTestCase {
    private var values: [Int64] {
        var values: [Int64] = [0, 1, -1, 9, -9, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        return values + [1_000_000_576_007_862, 2_000_000_123_456_789, 123_456_789_012_345_678]
    }

    func testAnIntegerColumnReadsAsSQLitesOwnText() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        let select = try db.prepare("SELECT ?1, CAST(?1 AS TEXT), typeof(?1)")
        for value in values {
            select.bind(value, at: 1)
            XCTAssertTrue(try select.step())
            XCTAssertEqual(select.string(at: 2), "integer")
            XCTAssertEqual(select.string(at: 0), select.string(at: 1), "\(value)")
            XCTAssertEqual(select.optionalString(at: 0), select.string(at: 1), "\(value)")
            select.reset()
        }
    }

    func testStoredIntegersAndTextReadBackAsBefore() throws {
        let db = try Connection(path: databasePath)
        defer { db.close() }
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        let insert = try db.prepare("INSERT INTO t (v) VALUES (?)")
        let stored: [String] = ["1000000576007862", "-42", "007", "", "text", "1e3"]
        for text in stored {
            if text == "1000000576007862" || text == "-42" {
                insert.bind(Int64(text)!, at: 1)
            } else {
                insert.bind(text, at: 1)
            }
            try insert.execute()
        }
        let select = try db.prepare("SELECT v FROM t ORDER BY id")
        var read: [String] = []
        while try select.step() { read.append(select.string(at: 0)) }
        XCTAssertEqual(read, stored)
    }
}
