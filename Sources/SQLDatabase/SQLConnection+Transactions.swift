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
        // Cached statements: a group commit opens one savepoint per write, so parsing matters.
        try prepare("SAVEPOINT \(name)").execute()
        do {
            let result = try body()
            try prepare("RELEASE \(name)").execute()
            return result
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE then removes it.
            try? prepare("ROLLBACK TO \(name)").execute()
            try? prepare("RELEASE \(name)").execute()
            throw error
        }
    }

    /// Rolls back if a transaction is still open; after a failed COMMIT the engine may already have.
    public func rollbackIgnoringErrors() {
        if isInTransaction { try? prepare("ROLLBACK").execute() }
    }
}
