internal import CSQLite
public import SQLDatabase

/// One SQLite connection with a statement cache keyed by SQL text.
///
/// Single owner: a connection is used by one thread at a time (it is opened with
/// SQLITE_OPEN_NOMUTEX, so SQLite does no locking of its own). Whoever hands a connection to
/// another thread must provide the happens-before edge (a lock or a queue).
public final class Connection: SQLConnection {
    /// How to open the file.
    public struct Options: Sendable {
        /// Create the file if missing; readers pass `false`: the writer made it, so a missing file is an error.
        public var create: Bool
        /// How long a lock conflict waits before failing with SQLITE_BUSY.
        public var busyTimeoutMs: Int32

        public init(create: Bool = true, busyTimeoutMs: Int32 = 5_000) {
            self.create = create
            self.busyTimeoutMs = busyTimeoutMs
        }
    }

    let handle: OpaquePointer
    public let path: String
    private var statements: [String: Statement] = [:]
    private var isClosed = false
    /// How many times ``prepare(_:)`` looked a statement up by its SQL text (a hash of the whole
    /// text and a comparison): callers on a hot path hold their statements instead, and tests
    /// count lookups to keep it that way.
    public private(set) var statementLookups = 0

    public init(path: String, options: Options = Options()) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_READWRITE
        if options.create { flags |= SQLITE_OPEN_CREATE }
        _ = Self.allocationStatisticsOff
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: rc, message: "cannot open \(path): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, options.busyTimeoutMs)
    }

    deinit { close() }

    /// Turns off SQLite's process-wide allocation statistics, once, before the first connection
    /// opens (``sqlite3_config`` works only before SQLite initializes, which opening does).
    ///
    /// Debian's SQLite is built without lookaside memory, so every allocation a statement makes
    /// (~290 per distinct SubmitReceipt write) goes to malloc, and with statistics on, each one
    /// and each free also locks a global mutex and updates counters: ~3 % of the server's
    /// instructions (callgrind). Nothing reads the statistics (`sqlite3_memory_used` and the
    /// soft heap limit, which needs them, are unused). If SQLite was initialized first, the call
    /// fails and the statistics stay on: slower, nothing else.
    private static let allocationStatisticsOff: Void = { _ = csqlite_config_memstatus(0) }()

    /// Whether SQLite counts allocations (``allocationStatisticsOff``); for tests.
    static var countsAllocations: Bool { sqlite3_memory_used() > 0 }

    /// Finalizes every cached statement and closes the connection; idempotent.
    ///
    /// The last connection to close a WAL database checkpoints it and removes the -wal file.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows of interest (DDL, PRAGMA settings).
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard rc == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(extendedCode: rc, message: message, sql: sql)
        }
    }

    /// The cached statement for `sql`, reset and with cleared bindings, ready to bind.
    ///
    /// Statements live as long as the connection: our SQL is a fixed set of literals, so the
    /// cache needs no bound.
    public func prepare(_ sql: String) throws -> Statement {
        statementLookups &+= 1
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (`nil` when no row or NULL).
    public func scalarInt64(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.optionalInt64(at: 0)
    }

    /// The first column of the first row of `sql` as text (`nil` when no row or NULL).
    public func scalarString(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.optionalString(at: 0)
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE (0 for an ignored INSERT OR IGNORE).
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(extendedCode: sqlite3_extended_errcode(handle),
                    message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

@available(*, unavailable)
extension Connection: Sendable {}
