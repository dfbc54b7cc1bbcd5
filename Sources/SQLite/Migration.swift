/// One named schema step; once released it is never edited, only followed by new ones.
public struct Migration: Sendable {
    public let name: String
    public let sql: String

    public init(_ name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

/// Why a database cannot be brought to the schema this binary knows.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The file was migrated by a newer binary; running old code on it could corrupt it.
    case schemaTooNew(found: Int, known: Int)
    /// An applied migration has a different name than the binary's: history was edited.
    case historyMismatch(version: Int, applied: String, expected: String)
    /// A migration left a row whose foreign key points nowhere; it was rolled back.
    case foreignKeyViolation(version: Int, table: String)

    public var description: String {
        switch self {
        case let .schemaTooNew(found, known):
            return "database schema version \(found) is newer than this binary knows (\(known))"
        case let .historyMismatch(version, applied, expected):
            return "database migration \(version) is '\(applied)' but this binary's is '\(expected)'"
        case let .foreignKeyViolation(version, table):
            return "database migration \(version) left rows in \(table) with dangling foreign keys"
        }
    }
}
