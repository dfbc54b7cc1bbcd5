import PostgreSQL
import SQLite
import SQLiteStore
import StorageCore

/// The copy itself, inside the target's one transaction.
extension MigrationPlan {
    func copyRows(from source: SQLite.Connection, to target: PostgreSQL.Connection,
                  progress: (String) -> Void) throws {
        for table in tables {
            if StoreMigration.seededTables.contains(table.name) {
                try target.execute("DELETE FROM \(quoted(table.name))")
            }
            let list = table.columns.map { Self.read(table.name, quoted($0.name)) }.joined(separator: ", ")
            let select = try source.prepare("SELECT \(list) FROM \(quoted(table.name))")
            defer { select.reset() }
            var pending: [[Value]] = []
            var copied = 0
            while try select.step() {
                pending.append(table.columns.indices.map { index in
                    Value(select, column: Int32(index), as: table.columns[index].type)
                })
                if pending.count == Self.batchRows {
                    try insert(pending, into: table, target)
                    copied += pending.count
                    pending.removeAll(keepingCapacity: true)
                }
            }
            for row in pending { try insert([row], into: table, target) }
            copied += pending.count
            progress("copied \(table.name): \(copied) rows")
        }
    }

    /// The SQL that reads `column` of `table` as PostgreSQL keeps it: the column itself, except
    /// history's event ids, which SQLite keeps in a compact form (``CompactEventID``), and
    /// history's expiries, which SQLite may read through the event's transaction
    /// (`history_events_expiry_through_pointer`) where PostgreSQL stores every one.
    static func read(_ table: String, _ column: String) -> String {
        guard table == "history_events" else { return column }
        switch column {
        case quoted("event_id"): return CompactEventID.textSQL(column)
        case quoted("expires_at_ms"):
            return """
                COALESCE(\(column), (SELECT t.expires_date_ms FROM transactions t
                    WHERE t.id = history_events.transaction_rowid))
                """
        default: return column
        }
    }

    /// Identity sequences continue after the copied ids, and after any id SQLite handed out
    /// and pruned since (AUTOINCREMENT's sqlite_sequence): a change sequence is a client's
    /// cursor and must never be issued twice.
    func advanceSequences(source: SQLite.Connection, target: PostgreSQL.Connection) throws {
        for table in tables {
            let handedOut = try Self.autoincrementFloor(table.name, source)
            for column in table.columns where column.isIdentity {
                let advance = try target.prepare("""
                    SELECT setval(pg_get_serial_sequence(?1, ?2), GREATEST(m, 1), m > 0)
                    FROM (SELECT GREATEST(COALESCE(MAX(\(quoted(column.name))), 0), ?3) AS m
                          FROM \(quoted(table.name))) AS t
                    """)
                advance.bind(quoted(table.name), at: 1)
                advance.bind(column.name, at: 2)
                advance.bind(handedOut, at: 3)
                try advance.execute()
            }
        }
        // PostgreSQL's change log remembers the newest pruned sequence in a column of its own
        // (SQLite keeps it in sqlite_sequence): the latest sequence must survive an empty log.
        let latestChange = try Self.autoincrementFloor("entitlement_changes", source)
        let pruned = try target.prepare(
            "UPDATE change_log_identity SET pruned_through = GREATEST(pruned_through, ?1)")
        pruned.bind(latestChange, at: 1)
        try pruned.execute()
    }

    /// Source and target hold the same number of rows in every table, or nothing is committed.
    func verifyCounts(source: SQLite.Connection, target: PostgreSQL.Connection) throws -> [StoreMigration.TableCount] {
        var counts: [StoreMigration.TableCount] = []
        var differing: [String] = []
        for table in tables {
            let from = try source.scalarInt64("SELECT count(*) FROM \(quoted(table.name))") ?? 0
            let to = try target.scalarInt64("SELECT count(*) FROM \(quoted(table.name))") ?? 0
            if from != to { differing.append("\(table.name): \(from) in SQLite, \(to) in PostgreSQL") }
            counts.append(.init(table: table.name, rows: to))
        }
        guard differing.isEmpty else {
            throw StoreMigration.Failure(
                kind: .countMismatch,
                message: "row counts differ after the copy (\(differing.joined(separator: "; "))); rolled back, "
                    + "the target is as before. Was entitlementd still writing to the SQLite file? Stop it and retry")
        }
        return counts
    }

    private static func autoincrementFloor(_ table: String, _ source: SQLite.Connection) throws -> Int64 {
        guard try source.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'") == 1
        else { return 0 }
        let statement = try source.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1")
        defer { statement.reset() }
        statement.bind(table, at: 1)
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    private func insert(_ rows: [[Value]], into table: Table, _ target: PostgreSQL.Connection) throws {
        let width = table.columns.count
        let tuples = (0..<rows.count).map { row in
            "(" + (1...width).map { "?\(row * width + $0)" }.joined(separator: ", ") + ")"
        }
        let overriding = table.hasIdentity ? " OVERRIDING SYSTEM VALUE" : ""
        let statement = try target.prepare(
            "INSERT INTO \(quoted(table.name)) (\(table.columns.map { quoted($0.name) }.joined(separator: ", ")))"
                + overriding + " VALUES " + tuples.joined(separator: ", "))
        for (rowIndex, row) in rows.enumerated() {
            for (columnIndex, value) in row.enumerated() {
                value.bind(to: statement, at: Int32(rowIndex * width + columnIndex + 1))
            }
        }
        try statement.execute()
    }

    /// One SQLite value, read as the target column's type.
    enum Value {
        case null, integer(Int64), boolean(Bool), text(String), bytes([UInt8])

        init(_ statement: SQLite.Statement, column: Int32, as type: ValueType) {
            guard !statement.isNull(at: column) else {
                self = .null
                return
            }
            switch type {
            case .integer: self = .integer(statement.int64(at: column))
            case .boolean: self = .boolean(statement.bool(at: column))
            case .text: self = .text(statement.string(at: column))
            case .bytes: self = .bytes(statement.withBytes(at: column) { Array($0) })
            }
        }

        func bind(to statement: PostgreSQL.Statement, at index: Int32) {
            switch self {
            case .null: statement.bindNull(at: index)
            case .integer(let value): statement.bind(value, at: index)
            case .boolean(let value): statement.bind(value, at: index)
            case .text(let value): statement.bind(value, at: index)
            case .bytes(let value): statement.bind(blob: value, at: index)
            }
        }
    }
}
