import Entitlements
import SQLDatabase
import StorageTables

/// What `entitlementd verify-store` found in a store's records.
package struct RecordVerification: Sendable {
    /// Read-model records read.
    package var records = 0
    /// Records that disagree with the tables they were written from, or cannot be read: the
    /// first few, each a sentence naming the user.
    package var problems: [String] = []
    /// How many problems there were in all (``problems`` keeps the first ``shownProblems``).
    package var problemCount = 0

    package static let shownProblems = 20

    mutating func add(_ problem: String) {
        problemCount += 1
        if problems.count < Self.shownProblems { problems.append(problem) }
    }
}

/// Checks the facts records of a store against the tables, for either engine.
///
/// A record is a copy of a user's rows in `transactions` and `renewal_infos`, written in the
/// same transaction as them; reads trust it before the tables. So a record that cannot be
/// decoded, or decodes to other facts than the tables hold, is damage that would change
/// answers (a bit flip in a backup, a bad restore, a writer bug), and only this check sees it.
package enum StoreVerifier {
    package static func verifyRecords<DB: StorageEngine>(_ db: DB) throws -> RecordVerification {
        var result = RecordVerification()
        var names: [Int64: String] = [:]
        let productName = try db.prepare("SELECT name FROM product_names WHERE id = ?")
        let name = { (row: Int64) -> String? in
            if let known = names[row] { return known }
            productName.bind(row, at: 1)
            defer { productName.reset() }
            guard (try? productName.step()) == true else { return nil }
            names[row] = productName.string(at: 0)
            return names[row]
        }
        // A separate statement for the tables: the rows of the records query stay being read.
        let records = try db.prepare("SELECT user_id, facts FROM user_facts ORDER BY user_key")
        let tables = try db.prepare(UserFacts.tablesSQL)
        defer { records.reset() }
        while try records.step() {
            result.records += 1
            let userID = records.string(at: 0)
            let decoded: UserFacts?
            do {
                decoded = try records.withBytes(at: 1) { bytes throws(UserFactsRecord.Malformed) in
                    try UserFactsRecord.decode(bytes, name: name)
                }
            } catch {
                result.add("the facts record of user \(userID) is malformed")
                continue
            }
            guard let decoded else {
                result.add("the facts record of user \(userID) has a format this entitlementd cannot read")
                continue
            }
            let stored = try UserFacts.readTables(tables, userID: userID)
            if Set(decoded.transactions) != Set(stored.transactions) || decoded.renewalInfos != stored.renewalInfos {
                result.add("the facts record of user \(userID) differs from the user's transactions and "
                           + "renewal infos (record: \(decoded.transactions.count) transactions, tables: "
                           + "\(stored.transactions.count))")
            }
        }
        return result
    }
}
