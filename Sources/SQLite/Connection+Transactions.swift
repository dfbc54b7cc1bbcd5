import SQLDatabase

/// SQLite's transaction kinds; savepoints and rollback come from ``SQLConnection``.
extension Connection {
    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes no lock until the first read or write; a later write may fail with SQLITE_BUSY.
        case deferred = "DEFERRED"
        /// Takes the write lock at BEGIN, so a writer never fails mid-transaction on a lock upgrade.
        case immediate = "IMMEDIATE"

        public var beginSQL: String {
            switch self {
            case .deferred: return "BEGIN DEFERRED"
            case .immediate: return "BEGIN IMMEDIATE"
            }
        }
    }

    /// Runs `body` in a transaction; commits if it returns, rolls back if it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try transaction(beginning: [kind.beginSQL], body)
    }
}
