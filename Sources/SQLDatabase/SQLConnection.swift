/// One prepared statement of any SQL engine: bind parameters, step through rows, read columns.
///
/// Parameters count from 1 and columns from 0 (SQLite's convention, which the PostgreSQL module
/// follows). Column readers assume the schema's types; they do not convert, because the schema
/// is ours. Used on its connection's thread only.
public protocol SQLStatement: AnyObject, SendableMetatype {
    var sql: String { get }

    func bind(_ value: Int64, at index: Int32)
    func bind(_ value: Int64?, at index: Int32)
    func bind(_ value: Int, at index: Int32)
    func bind(_ value: Bool, at index: Int32)
    func bind(_ value: String, at index: Int32)
    func bind(_ value: String?, at index: Int32)
    /// Binds bytes (a BLOB, or PostgreSQL's bytea); the engine copies them.
    func bind(blob bytes: [UInt8], at index: Int32)
    func bindNull(at index: Int32)

    /// Advances to the next row: `true` when a row is available, `false` when done.
    func step() throws -> Bool
    /// Runs a statement that returns no rows of interest to completion, then resets it.
    func execute() throws
    /// Ends the current run and clears bindings.
    func reset()

    func isNull(at column: Int32) -> Bool
    func int64(at column: Int32) -> Int64
    func optionalInt64(at column: Int32) -> Int64?
    func bool(at column: Int32) -> Bool
    func string(at column: Int32) -> String
    func optionalString(at column: Int32) -> String?
    /// Lends the column's bytes without copying; valid only inside `body`, before the next step
    /// or reset.
    func withBytes<R, E: Error>(at column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R
}

/// One connection of any SQL engine, with a statement cache keyed by SQL text.
///
/// Why a protocol: the entitlement store's SQL is written once, in the subset both SQLite and
/// PostgreSQL run (`?`/`?N` parameters, `INSERT ... ON CONFLICT`, `RETURNING`, no engine-only
/// functions); only DDL, settings and how a write transaction takes its lock differ per engine.
/// Stores are generic over the connection type, so each engine's calls are direct, not
/// existential. Single owner: used by one thread at a time.
public protocol SQLConnection: AnyObject, SendableMetatype {
    associatedtype Statement: SQLStatement

    /// Runs one or more statements without parameters (DDL, settings, BEGIN/COMMIT).
    func execute(_ sql: String) throws
    /// The cached statement for `sql`, reset and with cleared bindings, ready to bind.
    func prepare(_ sql: String) throws -> Statement
    /// The first column of the first row of `sql` as an integer (`nil` when no row or NULL).
    func scalarInt64(_ sql: String) throws -> Int64?
    /// The first column of the first row of `sql` as text (`nil` when no row or NULL).
    func scalarString(_ sql: String) throws -> String?
    /// Rows changed by the last INSERT, UPDATE or DELETE run (0 for an INSERT that did nothing).
    var changes: Int { get }
    /// Whether a transaction is open (also while it is failed and waits for a rollback).
    var isInTransaction: Bool { get }
    /// Closes the connection; idempotent.
    func close()
    /// Runs `statement`, which returns no rows, for a caller that needs no answer before its
    /// next statement; `changed` gets its changed-row count (``changes``) and must not use the
    /// connection. An engine reached over the network may send it without waiting and read its
    /// result together with others' when the connection next needs an answer, or at
    /// ``flushDeferred()``: its failure is then thrown by that later call. SQLite runs it now.
    func executeDeferred(_ statement: Statement, then changed: ((Int) -> Void)?) throws
    /// Reads every deferred statement's result; throws the first failure among them.
    func flushDeferred() throws
    /// Sends `statement`, bound and returning rows, ahead of its first ``SQLStatement/step()``
    /// where an engine can (its rows then come with the next answer the connection waits for);
    /// nothing elsewhere. Bind nothing else before stepping it.
    func prefetch(_ statement: Statement) throws
}

extension SQLConnection {
    public func executeDeferred(_ statement: Statement, then changed: ((Int) -> Void)?) throws {
        try statement.execute()
        changed?(changes)
    }

    public func flushDeferred() throws {}

    public func prefetch(_ statement: Statement) throws {}

    /// ``executeDeferred(_:then:)`` without interest in the count.
    public func executeDeferred(_ statement: Statement) throws {
        try executeDeferred(statement, then: nil)
    }
}

/// How an engine's error tells the store whose fault a failed write is.
///
/// A constraint violation is the write's own fault (its savepoint is undone, the rest of a group
/// commit goes on); a transient failure (lost connection, lock timeout, disk full, serialization
/// failure) is the storage's, so the whole batch aborts and is retried write by write.
public protocol SQLFailure: Error {
    var isConstraintViolation: Bool { get }
    var isTransient: Bool { get }
    /// The database file or its disk failed (I/O error, disk full, read-only, cannot open): no
    /// write can succeed until an operator (or freed space) repairs it. An engine reached over
    /// the network answers false; its outages show on its connections.
    var isFileFailure: Bool { get }
}

extension SQLFailure {
    public var isFileFailure: Bool { false }
}
