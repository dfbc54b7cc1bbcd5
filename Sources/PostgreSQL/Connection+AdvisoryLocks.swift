/// Session-level advisory locks: held until unlocked or until the session ends, which is what
/// makes them a lease (a crashed holder's session ends, and the lock with it).
///
/// A reconnect starts a new session without the locks: compare ``Connection/session`` to tell.
/// Transaction-level locks (`pg_advisory_xact_lock`) need no API: plain SQL inside a
/// transaction, released at COMMIT or ROLLBACK.
extension Connection {
    /// Takes the lock on `key` if no other session holds it; `true` when this session now holds it.
    public func tryAdvisoryLock(_ key: Int64) throws(PostgreSQLError) -> Bool {
        try booleanQuery("SELECT pg_try_advisory_lock(?1)", key)
    }

    /// Waits (blocking this thread) until the lock on `key` is this session's.
    public func advisoryLock(_ key: Int64) throws(PostgreSQLError) {
        let statement = try prepare("SELECT pg_advisory_lock(?1)")
        statement.bind(key, at: 1)
        try statement.execute()
    }

    /// Releases one hold of the lock on `key`; `false` when this session did not hold it.
    @discardableResult
    public func advisoryUnlock(_ key: Int64) throws(PostgreSQLError) -> Bool {
        try booleanQuery("SELECT pg_advisory_unlock(?1)", key)
    }

    private func booleanQuery(_ sql: String, _ key: Int64) throws(PostgreSQLError) -> Bool {
        let statement = try prepare(sql)
        defer { statement.reset() }
        statement.bind(key, at: 1)
        guard try statement.step() else { return false }
        return statement.bool(at: 0)
    }
}
