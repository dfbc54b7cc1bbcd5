internal import CPostgreSQL
import SQLDatabase

/// One statement of a ``Connection``: bind parameters, step through rows, read columns.
///
/// Used on the connection's thread only. Indexes are SQLite's, so the store's code reads the
/// same on both engines: parameters count from 1, columns from 0. The first ``step()`` of a run
/// sends the statement with its parameters and fetches every row of the result; later steps
/// walk those rows. Parameters travel as text (blobs as binary `bytea`) and are declared by the
/// first run's bindings (`int8`, `text`, `bytea`; NULL and Bool leave the type to the server);
/// results come back in binary and are decoded by column type (see `Statement+Columns.swift`).
public final class Statement: SQLStatement {
    public let sql: String
    let rewritten: Placeholders.Rewritten
    unowned let connection: Connection
    var parameters: [Parameter]
    /// The server-side name and the session it was prepared in (`nil` until the first run).
    private var prepared: (name: String, session: Int)?
    var result: OpaquePointer?
    /// Set for ROLLBACK (see ``Connection/flushForRollback()``) and COMMIT (checked for a
    /// transaction the server had already failed, which COMMIT ends as a rollback).
    private let isRollback, isCommit: Bool
    var row: Int32 = -1
    private var rowCount: Int32 = 0
    /// Counts resets: a prefetched result belongs to the run it was sent in.
    private(set) var run = 0
    /// Sent by ``Connection/prefetch(_:)``; its rows arrive when the pipeline is read.
    var awaitsPipeline = false
    /// A prefetched run not stepped yet: binding a different value drops it, so its rows never
    /// answer other parameters.
    var isPrefetched = false

    enum Parameter {
        case null, integer(Int64), boolean(Bool), text(String), blob([UInt8])

        /// Equal values of the same kind, text compared byte for byte (as the server compares it).
        func isSame(as other: Parameter) -> Bool {
            switch (self, other) {
            case (.null, .null): true
            case let (.integer(a), .integer(b)): a == b
            case let (.boolean(a), .boolean(b)): a == b
            case let (.text(a), .text(b)): a.utf8.elementsEqual(b.utf8)
            case let (.blob(a), .blob(b)): a == b
            default: false
            }
        }

        /// The declared type: `int8`, `text`, `bytea`; 0 lets the server infer it from context
        /// (a Bool binds as `1`/`0`, which reads as either an integer or a boolean column).
        var typeOID: UInt32 {
            switch self {
            case .null, .boolean: 0
            case .integer: 20
            case .text: 25
            case .blob: 17
            }
        }
    }

    init(connection: Connection, sql: String) {
        self.sql = sql
        self.connection = connection
        rewritten = Placeholders.rewrite(sql)
        isRollback = Connection.isRollback(sql)
        isCommit = sql == "COMMIT"
        parameters = Array(repeating: .null, count: rewritten.parameterCount)
    }

    deinit { if let result { PQclear(result) } }

    // MARK: Binding

    private func set(_ parameter: Parameter, at index: Int32) {
        guard index >= 1 && Int(index) <= parameters.count else { return }
        if isPrefetched && !parameters[Int(index) - 1].isSame(as: parameter) { dropPrefetched() }
        parameters[Int(index) - 1] = parameter
    }

    /// Forgets the current run (its result, or the one still in the pipeline); keeps the bindings.
    private func dropPrefetched() {
        if let result { PQclear(result) }
        result = nil
        run += 1
        awaitsPipeline = false
        isPrefetched = false
        row = -1
        rowCount = 0
    }

    public func bind(_ value: Int64, at index: Int32) { set(.integer(value), at: index) }

    public func bind(_ value: Int64?, at index: Int32) { set(value.map(Parameter.integer) ?? .null, at: index) }

    public func bind(_ value: Int, at index: Int32) { set(.integer(Int64(value)), at: index) }

    public func bind(_ value: Bool, at index: Int32) { set(.boolean(value), at: index) }

    public func bind(_ value: String, at index: Int32) { set(.text(value), at: index) }

    public func bind(_ value: String?, at index: Int32) { set(value.map(Parameter.text) ?? .null, at: index) }

    /// Binds bytes as `bytea`; they are copied when the statement runs.
    public func bind(blob bytes: [UInt8], at index: Int32) { set(.blob(bytes), at: index) }

    public func bindNull(at index: Int32) { set(.null, at: index) }

    // MARK: Stepping

    /// Advances to the next row: `true` when a row is available, `false` when done.
    public func step() throws(PostgreSQLError) -> Bool {
        if result == nil && awaitsPipeline { try connection.flushDeferred() }
        isPrefetched = false
        if result == nil {
            let fetched = try runNow()
            result = fetched
            row = -1
            rowCount = PQntuples(fetched)
        }
        row += 1
        return row < rowCount
    }

    /// Runs a statement to completion, then resets it.
    public func execute() throws(PostgreSQLError) {
        defer { reset() }
        while try step() {}
    }

    /// Ends the current run (drops its rows) and clears bindings.
    public func reset() {
        dropPrefetched()
        for index in parameters.indices { parameters[index] = .null }
    }

    /// The server-side name if prepared in `session` (nil: the next run prepares it).
    func preparedName(in session: Int) -> String? {
        guard let prepared, prepared.session == session else { return nil }
        return prepared.name
    }

    /// Prepares on the server if this session has not yet, then executes with the bindings.
    /// Takes a prefetched run's rows; false (the caller frees it) unless it holds rows.
    func adopt(_ fetched: OpaquePointer) -> Bool {
        guard PQresultStatus(fetched) == PGRES_TUPLES_OK else { return false }
        result = fetched
        row = -1
        rowCount = PQntuples(fetched)
        return true
    }

    private func runNow() throws(PostgreSQLError) -> OpaquePointer {
        if isRollback { connection.flushForRollback() } else { try connection.flushDeferred() }
        try connection.ensureConnected()
        let handle = connection.handle
        let name: String
        if let prepared, prepared.session == connection.session {
            name = prepared.name
        } else {
            name = connection.newStatementName()
            let types = parameters.map(\.typeOID)
            connection.waits += 1
            let result = PQprepare(handle, name, rewritten.sql, Int32(types.count), types)
            defer { PQclear(result) }
            try connection.check(result, sql: sql)
            prepared = (name, connection.session)
        }
        connection.waits += 1
        let result = withParameterArrays { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
        }
        do {
            try connection.check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        guard let result else { preconditionFailure("check passes only a non-nil result") }
        if isCommit, String(cString: PQcmdStatus(result)) == "ROLLBACK" {
            PQclear(result)
            throw PostgreSQLError(kind: .other, sqlState: nil,
                                  message: "the transaction had failed, and COMMIT rolled it back", sql: sql)
        }
        connection.recordChanges(result)
        return result
    }

    /// Lays every parameter out in one buffer (text NUL-terminated, blobs raw) for libpq.
    func withParameterArrays<R>(
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> R
    ) -> R {
        var bytes: [UInt8] = [0]
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for parameter in parameters {
            var offset = bytes.count
            var length = 0
            var format: Int32 = 0
            switch parameter {
            case .null: offset = -1
            case .integer(let value): bytes += String(value).utf8; bytes.append(0)
            case .boolean(let value): bytes += [value ? UInt8(ascii: "1") : UInt8(ascii: "0"), 0]
            case .text(let value): bytes += value.utf8; bytes.append(0)
            case .blob(let value):
                bytes += value
                length = value.count
                format = 1
            }
            offsets.append(offset)
            lengths.append(Int32(length))
            formats.append(format)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values = offsets.map { offset in
                offset < 0 ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return body(values, lengths, formats)
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
