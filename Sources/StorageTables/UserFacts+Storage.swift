import Entitlements
import SQLDatabase

/// How a user's ``UserFacts`` are read: from the `user_facts` read model when the user has a
/// record there, otherwise from the normalized tables (which the record is built from).
extension UserFacts {
    /// The user's record in the read model, by ``UserKey`` (bound as 1): the row's user id, to
    /// be compared with the one asked about, and the record.
    package static let recordSQL = """
        SELECT user_id, facts FROM user_facts WHERE user_key = ?
        """

    /// Binds the user's key (1), id (2) and record (3). A row holding another user's id under
    /// the same key is left alone (that user keeps it; this one is read from the tables), so
    /// a record never answers for anyone but its user.
    package static let upsertRecordSQL = """
        INSERT INTO user_facts (user_key, user_id, facts) VALUES (?1, ?2, ?3)
        ON CONFLICT (user_key) DO UPDATE SET facts = excluded.facts WHERE user_facts.user_id = excluded.user_id
        """

    /// A user's facts from the tables in one statement: one row per transaction, its chain's
    /// renewal info beside it. One statement is one read transaction, so the facts are a
    /// consistent snapshot without BEGIN/COMMIT. LEFT JOINs keep a chain that has renewal info
    /// but no transaction yet (t.id is NULL there).
    ///
    /// The names come from `product_names` joined by primary key (at most one row each, NULL for
    /// a NULL reference: what ``ProductNameSQL/name(_:)``'s subquery gives) rather than from a
    /// subquery per column: the writer runs this after every write, and the three subqueries per
    /// row were ~15 % of this statement's instructions (callgrind, distinct SubmitReceipt calls).
    package static let tablesSQL = """
        SELECT \(Transaction.columns(productName: "tp.name", groupName: "tg.name")), t.id, c.id,
            \(RenewalInfo.columns(autoRenewProductName: "rp.name")), r.chain_rowid
        FROM users u JOIN chains c ON c.user_rowid = u.id
            LEFT JOIN transactions t ON t.chain_rowid = c.id
            LEFT JOIN product_names tp ON tp.id = t.product_name_rowid
            LEFT JOIN product_names tg ON tg.id = t.group_name_rowid
            LEFT JOIN renewal_infos r ON r.chain_rowid = c.id
            LEFT JOIN product_names rp ON rp.id = r.auto_renew_product_name_rowid
        WHERE u.user_id = ?
        """

    /// Runs `statement` (``recordSQL``) for `userID`: the decoded record, or nil when the user
    /// has none (no row under their key, a row of another user with the same key, or a record
    /// this binary cannot read), so the caller reads the tables.
    /// `name` reads the `product_names` rows a record refers to.
    package static func readRecord(
        _ statement: some SQLStatement, userID: String, name: (Int64) -> String?
    ) throws -> UserFacts? {
        statement.bind(UserKey.of(userID), at: 1)
        defer { statement.reset() }
        guard try statement.step(),
              statement.withBytes(at: 0, { userID.hasSameBytes(as: $0) }) else { return nil }
        return try? statement.withBytes(at: 1) { bytes throws(UserFactsRecord.Malformed) in
            try UserFactsRecord.decode(bytes, name: name)
        } ?? nil
    }

    /// Runs `statement` (``tablesSQL``) for `userID` and collects the rows.
    package static func readTables(_ statement: some SQLStatement, userID: String) throws -> UserFacts {
        statement.bind(userID, at: 1)
        defer { statement.reset() }
        var facts = UserFacts()
        var lastChain: Int64?
        while try statement.step() {
            if !statement.isNull(at: 16) {
                facts.transactions.append(Transaction(row: statement))
            }
            // The renewal info repeats on each of a chain's rows, which come chain by chain (the
            // join's nested loops); decoding it once per run of rows is enough, and a chain seen
            // again would only store the same value again.
            let chain = statement.int64(at: 17)
            guard chain != lastChain else { continue }
            lastChain = chain
            if !statement.isNull(at: 25) {
                let info = RenewalInfo(row: statement, offset: 18)
                facts.renewalInfos[info.originalTransactionID] = info
            }
        }
        return facts
    }
}
