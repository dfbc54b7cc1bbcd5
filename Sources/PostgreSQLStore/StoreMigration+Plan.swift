import PostgreSQL
import SQLite
import StorageCore

/// What ``StoreMigration`` copies: the tables both catalogs list, in foreign-key order, with
/// each column's PostgreSQL type deciding how a SQLite value is read.
struct MigrationPlan {
    enum ValueType { case integer, boolean, text, bytes }

    struct Column {
        var name: String
        var type: ValueType
        var isIdentity: Bool
    }

    struct Table {
        var name: String
        var columns: [Column]
        var hasIdentity: Bool { columns.contains(where: \.isIdentity) }
    }

    /// Parents before children, so every foreign key finds its row.
    let tables: [Table]
    /// Rows per multi-row INSERT: one round trip per batch instead of per row.
    static let batchRows = 200

    typealias Failure = StoreMigration.Failure

    init(source: SQLite.Connection, target: PostgreSQL.Connection) throws(Failure) {
        do {
            let sourceTables = try Self.sourceTables(source)
            let targetTables = try Self.targetTables(target).subtracting([StoreMigration.migrationTable])
            guard sourceTables == targetTables else {
                throw Failure(
                    kind: .schemaMismatch,
                    message: "the SQLite and PostgreSQL schemas list different tables (only in SQLite: "
                        + "\(sourceTables.subtracting(targetTables).sorted()), only in PostgreSQL: "
                        + "\(targetTables.subtracting(sourceTables).sorted())): this entitlementd cannot copy "
                        + "them; use the entitlementd release that wrote the SQLite file")
            }
            var tables: [Table] = []
            for name in try Self.foreignKeyOrder(sourceTables, target) {
                tables.append(try Self.table(name, source: source, target: target))
            }
            self.tables = tables
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(kind: .target, message: "cannot read the schemas: \(error)")
        }
    }

    static func sourceTables(_ source: SQLite.Connection) throws -> Set<String> {
        let statement = try source.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names.subtracting([StoreMigration.migrationTable])
    }

    static func targetTables(_ target: PostgreSQL.Connection) throws -> Set<String> {
        let statement = try target.prepare("""
            SELECT table_name::text FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """)
        defer { statement.reset() }
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.string(at: 0)) }
        return names
    }

    /// Kahn's algorithm over the target's foreign keys; ties broken by name for a stable order.
    static func foreignKeyOrder(_ names: Set<String>, _ target: PostgreSQL.Connection) throws -> [String] {
        let statement = try target.prepare("""
            SELECT child.relname::text, parent.relname::text
            FROM pg_constraint c
            JOIN pg_class child ON child.oid = c.conrelid
            JOIN pg_class parent ON parent.oid = c.confrelid
            WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
            """)
        defer { statement.reset() }
        var parents: [String: Set<String>] = [:]
        while try statement.step() {
            let child = statement.string(at: 0), parent = statement.string(at: 1)
            if child != parent { parents[child, default: []].insert(parent) }
        }
        var order: [String] = []
        var remaining = names
        while !remaining.isEmpty {
            let ready = remaining.filter { parents[$0, default: []].isDisjoint(with: remaining) }.sorted()
            guard !ready.isEmpty else {
                throw Failure(kind: .schemaMismatch,
                              message: "foreign keys form a cycle among \(remaining.sorted()): cannot order the copy")
            }
            order += ready
            remaining.subtract(ready)
        }
        return order
    }

    /// The source's columns, typed by the target; a column the target lacks stops the copy,
    /// one the source lacks keeps the target's default.
    static func table(_ name: String, source: SQLite.Connection, target: PostgreSQL.Connection) throws -> Table {
        let sourceColumns = try source.prepare("SELECT name FROM pragma_table_info(?1)")
        defer { sourceColumns.reset() }
        sourceColumns.bind(name, at: 1)
        var names: [String] = []
        while try sourceColumns.step() { names.append(sourceColumns.string(at: 0)) }
        let targetColumns = try target.prepare("""
            SELECT column_name::text, data_type::text, is_identity::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ?1
            """)
        defer { targetColumns.reset() }
        targetColumns.bind(name, at: 1)
        var types: [String: (String, Bool)] = [:]
        while try targetColumns.step() {
            types[targetColumns.string(at: 0)] = (targetColumns.string(at: 1), targetColumns.string(at: 2) == "YES")
        }
        return Table(name: name, columns: try names.map { column throws(Failure) in
            guard let (dataType, isIdentity) = types[column] else {
                throw Failure(kind: .schemaMismatch,
                              message: "column \(name).\(column) is in SQLite but not in PostgreSQL: "
                                  + "use the entitlementd release that wrote the SQLite file")
            }
            let type: ValueType
            switch dataType {
            case "bigint", "integer", "smallint": type = .integer
            case "boolean": type = .boolean
            case "text", "character varying", "character": type = .text
            case "bytea": type = .bytes
            default:
                throw Failure(kind: .schemaMismatch, message: "column \(name).\(column) has type \(dataType), "
                              + "which migrate-store does not copy")
            }
            return Column(name: column, type: type, isIdentity: isIdentity)
        })
    }
}
