import Foundation
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import XCTest

/// `Sources/SQLiteStore/schema.sql` is the schema the migrations build: an empty database
/// migrated and another given the file hold the same tables, columns (declared types, NOT NULL,
/// defaults, keys), foreign keys and indexes.
final class SQLiteSchemaFileTests: StoreTestCase {
    static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/SQLiteStore/schema.sql").standardized.path

    func testTheMigrationsBuildWhatSchemaSQLDescribes() throws {
        let migrated = try Connection(path: directory + "/migrated.sqlite")
        defer { migrated.close() }
        try Schema.migrate(migrated, nowMs: 1)
        let described = try Connection(path: directory + "/described.sqlite")
        defer { described.close() }
        try described.execute(String(contentsOfFile: Self.schemaFile, encoding: .utf8))

        let expected = try Self.dump(described)
        XCTAssertGreaterThan(expected.count, 100)
        let found = try Self.dump(migrated)
        XCTAssertEqual(found, expected)
        for line in Set(found).symmetricDifference(expected).sorted() {
            XCTFail("differs: \(line) (\(found.contains(line) ? "migrations only" : "schema.sql only"))")
        }
    }

    /// A table a migration takes from schema.sql is one no later migration changes, or the
    /// taking migration would make the later shape too early on an upgrade (``SchemaFile``).
    func testNoMigrationChangesATableAnEarlierOneTookFromSchemaSQL() {
        let migrations = Schema.migrator.migrations.map(\.sql)
        XCTAssertEqual(Schema.current.tablesChangedAfterTaken(in: migrations).map { "\($0)" }, [])
        let altered = migrations + ["ALTER TABLE grants ADD COLUMN note TEXT;", "DROP TABLE users;"]
        XCTAssertEqual(Schema.current.tablesChangedAfterTaken(in: altered).map(\.table).sorted(), ["grants", "users"])
    }

    /// Every table but the migrator's own, one line per table, column, foreign key and index, in
    /// a fixed order; an index made by CREATE INDEX with its statement, one a constraint made
    /// by its origin and columns (SQLite numbers those by creation order).
    static func dump(_ db: Connection) throws -> [String] {
        var lines: [String] = []
        let tables = try rows(db, """
            SELECT name || ' ' || (instr(sql, 'WITHOUT ROWID') > 0) || ' ' || (instr(sql, 'AUTOINCREMENT') > 0)
            FROM sqlite_master
            WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name
            """)
        for table in tables {
            let name = String(table.prefix { $0 != " " })
            lines.append("table \(table)")
            lines += try rows(db, """
                SELECT '  column ' || name || ' ' || quote(type) || ' notnull=' || "notnull"
                    || ' default=' || quote(dflt_value) || ' pk=' || pk
                FROM pragma_table_info('\(name)') ORDER BY cid
                """)
            lines += try rows(db, """
                SELECT '  foreign key ' || "from" || ' -> ' || "table" || '(' || "to" || ')'
                FROM pragma_foreign_key_list('\(name)') ORDER BY id, seq
                """)
            lines += try rows(db, """
                SELECT '  index '
                    || CASE l.origin WHEN 'c' THEN (SELECT sql FROM sqlite_master m WHERE m.name = l.name)
                        ELSE l.origin END || ' unique=' || l."unique" || ' ('
                    || (SELECT group_concat(i.name, ',')
                        FROM (SELECT name FROM pragma_index_info(l.name) ORDER BY seqno) i)
                    || ')'
                FROM pragma_index_list('\(name)') l ORDER BY 1
                """).map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        }
        return lines
    }

    private static func rows(_ db: Connection, _ sql: String) throws -> [String] {
        let statement = try db.prepare(sql)
        defer { statement.reset() }
        var rows: [String] = []
        while try statement.step() { rows.append(statement.string(at: 0)) }
        return rows
    }
}
