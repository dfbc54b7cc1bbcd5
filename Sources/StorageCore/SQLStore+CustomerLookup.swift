import EntitlementPorts
import SQLDatabase

/// Customer lookups for the console: indexed reads on the read connections, never the writer.
extension SQLStore: CustomerLookup {
    public nonisolated func originalTransactionID(ofTransaction transactionID: String) throws -> String? {
        try read("finding a transaction's chain") { try $0.chain(ofTransaction: transactionID) }
    }

    public nonisolated func issuedAppAccountToken(userID: String) throws -> String? {
        try read("reading an app account token") { try $0.token(ofUser: userID) }
    }
}

extension StoreReader {
    /// `transactions.transaction_id` is unique and indexed: one row, one join.
    package func chain(ofTransaction transactionID: String) throws -> String? {
        let select = try db.prepare("""
            SELECT c.original_transaction_id FROM transactions t JOIN chains c ON c.id = t.chain_rowid
            WHERE t.transaction_id = ?
            """)
        DB.bindDecimalID(transactionID, at: 1, of: select)
        defer { select.reset() }
        return try select.step() ? select.string(at: 0) : nil
    }
}
