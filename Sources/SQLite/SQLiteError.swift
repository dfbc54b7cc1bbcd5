public import SQLDatabase

/// A failed SQLite call: the result code, SQLite's message and the SQL that failed.
///
/// Meant for logs and for the layer above to classify (``isConstraintViolation``);
/// never shown to API clients, because the SQL and paths are internal.
public struct SQLiteError: SQLFailure, CustomStringConvertible, Sendable {
    /// The extended result code (e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE).
    public var extendedCode: Int32
    public var message: String
    public var sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (SQLITE_BUSY is 5, SQLITE_CONSTRAINT is 19, ...).
    public var primaryCode: Int32 { extendedCode & 0xff }

    public var isConstraintViolation: Bool { primaryCode == 19 }

    /// Busy, locked, I/O error, disk full, cannot open, protocol: the storage's trouble, not the
    /// statement's; the same statement may succeed later.
    public var isTransient: Bool { [5, 6, 10, 13, 14, 15].contains(primaryCode) }

    /// SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN.
    public var isFileFailure: Bool { [8, 10, 13, 14].contains(primaryCode) }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " (SQL: \(sql))" }
        return text
    }
}
