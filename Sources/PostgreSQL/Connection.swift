internal import CPostgreSQL
import Glibc
import SQLDatabase

/// One PostgreSQL session over libpq, with prepared statements cached by SQL text.
///
/// Single owner: a connection is used by one thread at a time, and every call blocks that
/// thread on the network (run it on a dedicated thread, never on Swift's cooperative pool).
/// Whoever hands a connection to another thread provides the happens-before edge.
///
/// A connection that breaks (server restart, `pg_terminate_backend`, network) fails the call
/// in progress with ``PostgreSQLError/Kind/connectionLost``; the next call reconnects with the
/// same settings. Server-side state does not survive that: prepared statements are prepared
/// again, the open transaction and session advisory locks are gone (the caller learned that
/// from the error), and channels given to ``listen(_:)`` are listened to again.
public final class Connection: SQLConnection {
    public let url: ConnectionURL
    var handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    private var nextStatementNumber = 0
    private var isClosed = false
    var listeningChannels: [String] = []

    /// Increases on every reconnect: a statement prepared in an older session prepares again.
    public private(set) var session = 0

    /// Rows changed by the last INSERT, UPDATE, DELETE or MERGE run on this connection (a
    /// deferred one's once its result is read, which asking for this does).
    public var changes: Int {
        if !deferred.isEmpty { try? flushDeferred() }
        return changedRows
    }
    var changedRows = 0
    /// Statements sent in pipeline mode, results unread (see `Connection+Pipeline.swift`).
    var deferred: [Deferred] = []
    /// Round trips waited for: statements run alone (and their preparation) and pipeline syncs,
    /// what deferred and prefetched statements save; read by tests that bound a write's waits.
    public internal(set) var waits = 0
    /// A deferred statement's failure, thrown again until its transaction is rolled back.
    var pipelineFailure: PostgreSQLError?

    /// Connects now; throws ``PostgreSQLError/Kind/connectionLost`` when the server cannot be
    /// reached or refuses the login.
    public init(url: ConnectionURL) throws(PostgreSQLError) {
        self.url = url
        handle = try Self.connect(url)
    }

    /// Parses `url` (see ``ConnectionURL``) and connects.
    public convenience init(url: String) throws(PostgreSQLError) {
        try self.init(url: ConnectionURL(url))
    }

    deinit { close() }

    /// Ends the session; idempotent. Later calls throw.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        PQfinish(handle)
    }

    /// Settings applied unless the URL says otherwise (libpq keeps the last of repeated keywords).
    private static let defaults: [(String, String)] = [("connect_timeout", "10")]
    /// Settings the rest of this module relies on, whatever the URL says.
    private static let required: [(String, String)] = [("client_encoding", "UTF8")]

    private static func connect(_ url: ConnectionURL) throws(PostgreSQLError) -> OpaquePointer {
        let pairs = defaults + url.settings.map { ($0.keyword, $0.value) } + required
        var storage = [UnsafeMutablePointer<CChar>?]()
        defer { storage.forEach { free($0) } }
        var keywords: [UnsafePointer<CChar>?] = []
        var values: [UnsafePointer<CChar>?] = []
        for (keyword, value) in pairs {
            let k = strdup(keyword), v = strdup(value)
            storage += [k, v]
            keywords.append(UnsafePointer(k))
            values.append(UnsafePointer(v))
        }
        keywords.append(nil)
        values.append(nil)
        guard let handle = PQconnectdbParams(keywords, values, 0) else {
            throw PostgreSQLError(kind: .connectionLost, sqlState: nil, message: "libpq is out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmed
            PQfinish(handle)
            throw PostgreSQLError(
                kind: .connectionLost, sqlState: nil,
                message: "cannot connect to \(url.redacted): \(message); check that the server runs and "
                    + "the URL, PGPASSWORD or ~/.pgpass hold the right user and password")
        }
        cpostgresql_silence_notices(handle)
        return handle
    }

    /// Makes sure the session is usable: reconnects a broken one (see the type's documentation).
    func ensureConnected() throws(PostgreSQLError) {
        guard !isClosed else {
            throw PostgreSQLError(kind: .invalidArgument, sqlState: nil,
                                  message: "the connection to \(url.redacted) is closed; open a new one")
        }
        guard PQstatus(handle) != CONNECTION_OK else { return }
        // Deferred statements were lost with the session: their caller hears it first.
        if !deferred.isEmpty { try flushDeferred() }
        statements.removeAll()
        session += 1
        changedRows = 0
        deferred = []
        pipelineFailure = nil
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmed
            throw PostgreSQLError(kind: .connectionLost, sqlState: nil,
                                  message: "cannot reconnect to \(url.redacted): \(message); retry later")
        }
        for channel in listeningChannels {
            try execute("LISTEN " + Self.quotedIdentifier(channel))
        }
    }

    /// Runs one or more statements without parameters (DDL, SET, BEGIN/COMMIT).
    public func execute(_ sql: String) throws(PostgreSQLError) {
        if Self.isRollback(sql) { flushForRollback() } else { try flushDeferred() }
        try ensureConnected()
        waits += 1
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
        recordChanges(result)
    }

    /// The cached statement for `sql` (`?`/`?N` parameters, see ``Placeholders``), with cleared
    /// bindings. The server prepares it on its first run, with parameter types from that run's
    /// bindings; our SQL is a fixed set of literals, so the cache needs no bound.
    public func prepare(_ sql: String) throws(PostgreSQLError) -> Statement {
        try ensureConnected()
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = Statement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (`nil` when no row or NULL).
    public func scalarInt64(_ sql: String) throws(PostgreSQLError) -> Int64? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.optionalInt64(at: 0)
    }

    /// The first column of the first row of `sql` as text (`nil` when no row or NULL).
    public func scalarString(_ sql: String) throws(PostgreSQLError) -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.optionalString(at: 0)
    }

    /// Whether a transaction block is open (also when it failed and awaits ROLLBACK).
    public var isInTransaction: Bool {
        if !deferred.isEmpty { return true }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The server process serving this session (what `pg_terminate_backend` takes).
    public var backendProcessID: Int32 { PQbackendPID(handle) }

    // MARK: Internals shared with Statement

    /// The server-side name of a newly prepared statement; never reused within a connection.
    func newStatementName() -> String {
        nextStatementNumber += 1
        return "s\(nextStatementNumber)"
    }

    /// Throws the error a result carries, classified; `nil` results mean libpq ran out of memory
    /// or lost the connection.
    func check(_ result: OpaquePointer?, sql: String?) throws(PostgreSQLError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            func field(_ code: Character) -> String? {
                result.flatMap { PQresultErrorField($0, Int32(code.asciiValue!)) }.map { String(cString: $0) }
            }
            let sqlState = field("C"), text = field("M")
            let message = text ?? String(cString: PQerrorMessage(handle)).trimmed
            throw PostgreSQLError(sqlState: sqlState, message: message, sql: sql,
                                  connectionIsBad: PQstatus(handle) != CONNECTION_OK)
        }
    }

    /// Keeps SQLite's meaning of `changes`: only data-changing commands update it.
    func recordChanges(_ result: OpaquePointer?) {
        guard let result, let status = PQcmdStatus(result) else { return }
        let command = String(cString: status)
        guard command.hasPrefix("INSERT") || command.hasPrefix("UPDATE") || command.hasPrefix("DELETE")
            || command.hasPrefix("MERGE") else { return }
        changedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Whether `sql` ends the transaction or savepoint a deferred failure belongs to.
    static func isRollback(_ sql: String) -> Bool {
        sql.utf8.prefix(8).elementsEqual("ROLLBACK".utf8)
    }

    /// `name` as a quoted SQL identifier (for LISTEN, which takes no parameters).
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}

@available(*, unavailable)
extension Connection: Sendable {}
