import SQLite
import StorageTables

extension Schema {
    /// `schema.sql`, the schema a database at the latest version holds, as this binary carries
    /// it: the migrations that make a table in its current shape take its statement from here.
    package static let current = SchemaFile(String(decoding: PackageResources.schema_sql, as: UTF8.self))

    /// How SQLite changes a column's type or constraints: `shape` (a CREATE TABLE statement of
    /// `table`) is made as `<table>_rebuilt` and filled by `copy` (what follows
    /// `INSERT INTO <table>_rebuilt`), the old table dropped, the new one renamed, and its
    /// `indexes` (gone with the old table) made again.
    ///
    /// The order keeps the other tables' foreign keys naming `table`; copies keep row ids, which
    /// those keys hold, and the migrator checks every key before it commits.
    static func rebuild(_ table: String, into shape: String, copy: String, indexes: [String] = []) -> String {
        ([SchemaFile.renamed(shape, table: table, to: "\(table)_rebuilt"),
          "INSERT INTO \(table)_rebuilt \(copy);",
          "DROP TABLE \(table);",
          "ALTER TABLE \(table)_rebuilt RENAME TO \(table);"] + indexes).joined(separator: "\n")
    }

    /// `statement`, a CREATE TABLE statement with one column or constraint a line, with the line
    /// of each column `changes` names replaced by its new definition: a rebuild's shape stated
    /// as the shape before it and what the migration changes, not as a copy of every column.
    static func changing(_ statement: String, _ changes: KeyValuePairs<String, String>) -> String {
        var lines = statement.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (column, definition) in changes {
            let matches = lines.indices.filter { lines[$0].split(separator: " ").first.map(String.init) == column }
            precondition(matches.count == 1, "\(column): \(matches.count) lines define it")
            let line = lines[matches[0]]
            let indent = line.prefix { $0 == " " }
            lines[matches[0]] = indent + definition + (line.hasSuffix(",") ? "," : "")
        }
        return lines.joined(separator: "\n")
    }
}
