internal import CSQLite
public import SQLDatabase

/// One prepared statement: bind parameters, step through rows, read columns.
///
/// Owned by its ``Connection`` and used on the connection's thread only. Indexes are SQLite's:
/// parameters count from 1, columns from 0. Column readers assume the schema's types; they do
/// not convert, because the schema is ours.
public final class Statement: SQLStatement {
    let handle: OpaquePointer
    public let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT),
                                    &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            throw connection.error(rc, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// How many times the statement has run (SQLite's SQLITE_STMTSTATUS_RUN): tests check which
    /// statements a path runs.
    public var runs: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_RUN, 0)) }

    // MARK: Binding

    public func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    public func bind(_ value: Int64?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    public func bind(_ value: Int, at index: Int32) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    public func bind(_ value: Bool, at index: Int32) {
        sqlite3_bind_int64(handle, index, value ? 1 : 0)
    }

    public func bind(_ value: String, at index: Int32) {
        // Explicit length: no strlen, and embedded NULs survive. SQLite copies the bytes.
        var value = value
        value.withUTF8 { bytes in
            let text = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            _ = sqlite3_bind_text(handle, index, text.assumingMemoryBound(to: CChar.self),
                                  Int32(bytes.count), csqlite_transient())
        }
    }

    public func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds bytes as a BLOB; SQLite copies them.
    public func bind(blob bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!,
                                  Int32(buffer.count), csqlite_transient())
        }
    }

    public func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    // MARK: Stepping

    /// Advances to the next row: `true` when a row is available, `false` when done.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    public func execute() throws {
        defer { reset() }
        while try step() {}
    }

    /// Ends the statement's current run and clears bindings; this also ends the implicit read
    /// transaction of a SELECT, so a reader must reset before it can see newer commits.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns

    public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    public func optionalInt64(at column: Int32) -> Int64? {
        isNull(at: column) ? nil : sqlite3_column_int64(handle, column)
    }

    public func bool(at column: Int32) -> Bool {
        sqlite3_column_int64(handle, column) != 0
    }

    /// The column as text; an INTEGER as its decimal digits, exactly as SQLite's own conversion
    /// writes them, but made here.
    ///
    /// Why: canonical transaction and web order ids are stored as INTEGERs, and reading them as
    /// text made SQLite print each into a buffer it mallocs for the column (kept until the next
    /// step), on top of the String: two allocations and a formatted print per id, ~14 per
    /// distinct SubmitReceipt's read-back of what it wrote, and on every facts-cache miss.
    public func string(at column: Int32) -> String {
        if sqlite3_column_type(handle, column) == SQLITE_INTEGER {
            return DecimalDigits.text(sqlite3_column_int64(handle, column))
        }
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Lends the column's bytes (a BLOB, or TEXT's UTF-8) without copying them; valid only
    /// inside `body`, before the next step or reset.
    public func withBytes<R, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R)
        throws(E) -> R {
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count == 0 ? nil : base, count: count))
    }

    public func optionalString(at column: Int32) -> String? {
        isNull(at: column) ? nil : string(at: column)
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
