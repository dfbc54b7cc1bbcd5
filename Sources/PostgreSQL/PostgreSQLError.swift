import ErrorCodes
import SQLDatabase

/// A failed PostgreSQL call: the SQLSTATE, the server's (or libpq's) message, the SQL, and
/// what kind of failure it is, so the layer above can decide between "the write itself is
/// wrong" and "the database is unavailable, retry later".
///
/// The description never contains a password: connection errors name the server through
/// ``ConnectionURL/redacted``. Never shown to API clients (SQL and hosts are internal).
public struct PostgreSQLError: SQLFailure, CustomStringConvertible, Sendable {
    /// What the caller can do about it.
    public typealias Kind = ErrorCode<PostgreSQLError>

    public var kind: Kind
    /// The five-character SQLSTATE (`23505`, `40001`, ...); `nil` for failures libpq reports
    /// itself (no server answer, such as a refused or dropped connection).
    public var sqlState: String?
    public var message: String
    public var sql: String?

    public init(kind: Kind, sqlState: String?, message: String, sql: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The error for a server or libpq answer: classified by SQLSTATE, or as a lost connection
    /// when libpq says the connection is no longer usable.
    init(sqlState: String?, message: String, sql: String?, connectionIsBad: Bool) {
        let kind = connectionIsBad ? Kind.connectionLost : Self.kind(ofSQLState: sqlState)
        self.init(kind: kind, sqlState: sqlState, message: message, sql: sql)
    }

    /// Classifies a SQLSTATE: class 08 (connection exception) and the shutdown/termination codes
    /// of class 57 mean the connection is gone; 40 (rollback: serialization, deadlock), 53
    /// (insufficient resources), the rest of 57 (operator intervention, e.g. a cancelled query)
    /// and 55P03 (lock not available) are worth retrying; 23 is a constraint refusing the write.
    public static func kind(ofSQLState sqlState: String?) -> Kind {
        guard let sqlState, sqlState.utf8.count == 5 else { return .other }
        switch sqlState {
        case "57P01", "57P02", "57P03": return .connectionLost
        case "55P03": return .transient
        default: break
        }
        switch sqlState.prefix(2) {
        case "08": return .connectionLost
        case "40", "53", "57": return .transient
        case "23": return .constraintViolation
        default: return .other
        }
    }

    /// The connection is gone; the next use of the ``Connection`` reconnects.
    public var isConnectionLost: Bool { kind == .connectionLost }

    /// Retrying the whole transaction later may succeed (includes a lost connection).
    public var isTransient: Bool { kind == .transient || kind == .connectionLost }

    public var isConstraintViolation: Bool { kind == .constraintViolation }

    public var description: String {
        var text = "PostgreSQL \(kind)"
        if let sqlState { text += " \(sqlState)" }
        text += ": \(message)"
        if let sql { text += " (SQL: \(sql))" }
        if isTransient { text += "; retry later" }
        return text
    }
}

extension ErrorCode<PostgreSQLError> {
    /// The connection is gone (refused, dropped, the backend terminated): the next use reconnects.
    public static var connectionLost: Self { Self("connection lost") }
    /// Retrying later may succeed: serialization failure, deadlock, lock not available,
    /// out of resources, server shutting down.
    public static var transient: Self { Self("transient") }
    /// A unique, foreign-key, not-null or check constraint refused the write (class 23).
    public static var constraintViolation: Self { Self("constraint violation") }
    /// The caller passed something unusable (a malformed URL, a closed connection).
    public static var invalidArgument: Self { Self("invalid argument") }
    /// Anything else: a bug in the SQL, a missing table, a type mismatch.
    public static var other: Self { Self("error") }
}
