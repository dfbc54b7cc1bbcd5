/// Transactions and savepoints in the SQL both engines share: the body commits when it returns
/// and rolls back when it throws.
extension SQLConnection {
    /// Runs `begin` (e.g. `BEGIN IMMEDIATE`, or `BEGIN` then a lock), then `body`; commits if
    /// it returns, rolls back if it throws.
    public func transaction<T>(beginning begin: [String], _ body: () throws -> T) throws -> T {
        do {
            for statement in begin { try prepare(statement).execute() }
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        do {
            try prepare("COMMIT").execute()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        return result
    }

    /// Runs `body` inside a savepoint: if it throws, only its changes are undone and the
    /// enclosing transaction goes on (in PostgreSQL this also clears the failed state an error
    /// leaves the transaction in).
    public func savepoint<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try SQLSavepoint(self, name: name).run(body)
    }

    /// Rolls back if a transaction is still open; after a failed COMMIT the engine may already have.
    public func rollbackIgnoringErrors() {
        if isInTransaction { try? prepare("ROLLBACK").execute() }
    }
}

/// A named savepoint's three statements, prepared once: a caller that opens one per write (the
/// store's group commit) holds this instead of looking the statements up by SQL text each time.
public struct SQLSavepoint<Connection: SQLConnection> {
    private let begin, release, rollback: Connection.Statement

    public init(_ db: Connection, name: String) throws {
        begin = try db.prepare("SAVEPOINT \(name)")
        release = try db.prepare("RELEASE \(name)")
        rollback = try db.prepare("ROLLBACK TO \(name)")
    }

    /// Runs `body` inside the savepoint: if it throws, only its changes are undone and the
    /// enclosing transaction goes on (see ``SQLConnection/savepoint(_:_:)``).
    public func run<T>(_ body: () throws -> T) throws -> T {
        try begin.execute()
        do {
            let result = try body()
            try release.execute()
            return result
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE then removes it.
            try? rollback.execute()
            try? release.execute()
            throw error
        }
    }
}
