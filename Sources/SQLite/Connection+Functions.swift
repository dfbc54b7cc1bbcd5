internal import CSQLite

/// SQL functions defined by the program, so a migration's SQL can compute a value the program
/// otherwise computes itself and binds (the same function, not a second spelling of it in SQL).
extension Connection {
    /// Defines `name(x)` on this connection: the integer `body` computes from x's bytes (text
    /// as UTF-8, a blob as it is); NULL for NULL. Deterministic: equal bytes, equal result.
    public func defineFunction(_ name: String, _ body: @escaping (UnsafeRawBufferPointer) -> Int64) throws {
        let box = Unmanaged.passRetained(FunctionBody(body)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box, Self.callFunction, nil, nil,
            { box in box.map { Unmanaged<FunctionBody>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }

    private static let callFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?)
        -> Void = { context, _, arguments in
            guard let box = sqlite3_user_data(context), let value = arguments?[0],
                  sqlite3_value_type(value) != SQLITE_NULL else {
                sqlite3_result_null(context)
                return
            }
            let function = Unmanaged<FunctionBody>.fromOpaque(box).takeUnretainedValue()
            let bytes = UnsafeRawPointer(sqlite3_value_text(value))
            let count = Int(sqlite3_value_bytes(value))
            sqlite3_result_int64(context, function.body(UnsafeRawBufferPointer(start: count == 0 ? nil : bytes,
                                                                               count: count)))
        }
}

/// A defined function's body, kept alive by SQLite (released when the function is dropped or
/// the connection closes).
final class FunctionBody {
    let body: (UnsafeRawBufferPointer) -> Int64
    init(_ body: @escaping (UnsafeRawBufferPointer) -> Int64) { self.body = body }
}
