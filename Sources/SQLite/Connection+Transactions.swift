/// Transactions and savepoints: the body commits when it returns and rolls back when it throws.
extension Connection {
    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes no lock until the first read or write; a later write may fail with SQLITE_BUSY.
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, so a writer never fails mid-transaction on a lock upgrade.
        case immediate = "IMMEDIATE"

        var beginSQL: String {
            switch self {
            case .deferred: return "BEGIN DEFERRED"
            case .immediate: return "BEGIN IMMEDIATE"
            }
        }
    }

    /// Runs `body` in a transaction; commits if it returns, rolls back if it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try prepare(kind.beginSQL).execute()
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
    /// enclosing transaction goes on.
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

    /// Rolls back if a transaction is still open; after a failed COMMIT SQLite may already have.
    public func rollbackIgnoringErrors() {
        if isInTransaction { try? prepare("ROLLBACK").execute() }
    }
}
