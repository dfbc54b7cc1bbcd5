import Entitlements
import SQLDatabase

/// The row-level statements of ``ChangeRecorder``.
extension ChangeRecorder {

    /// Prepared once per connection (see ``ChangeRecorder/statements``).
    package struct Statements {
        package let findUser, transactions, renewals, userFacts, heads, append, putHead, grants: DB.Statement

        package init(_ db: DB) throws {
            findUser = try db.prepare("SELECT id FROM users WHERE user_id = ?")
            userFacts = try db.prepare(UserFacts.tablesSQL)
            transactions = try db.prepare(StoreReaderSQL.userTransactionsSQL)
            renewals = try db.prepare(StoreReaderSQL.userRenewalInfosSQL)
            heads = try db.prepare(ChangeRecorderSQL.headsSQL)
            append = try db.prepare(ChangeRecorderSQL.appendSQL)
            putHead = try db.prepare(ChangeRecorderSQL.putHeadSQL)
            grants = try db.prepare(Grant.ofUserRowSQL)
        }
    }

    package func userRow(_ userID: String) throws -> Int64? {
        let find = statements.findUser
        find.bind(userID, at: 1)
        defer { find.reset() }
        return try find.step() ? find.int64(at: 0) : nil
    }

    /// The user's facts as the writer's open transaction sees them (the read path's queries).
    package func facts(userRow: Int64) throws -> UserFacts {
        var facts = UserFacts()
        let transactions = statements.transactions
        transactions.bind(userRow, at: 1)
        defer { transactions.reset() }
        while try transactions.step() { facts.transactions.append(Transaction(row: transactions)) }
        let renewals = statements.renewals
        renewals.bind(userRow, at: 1)
        defer { renewals.reset() }
        while try renewals.step() {
            let info = RenewalInfo(row: renewals)
            facts.renewalInfos[info.originalTransactionID] = info
        }
        facts.grants = try grants(userRow: userRow)
        return facts
    }

    package func grants(userRow: Int64) throws -> [Grant] {
        let select = statements.grants
        select.bind(userRow, at: 1)
        return try Grant.read(select)
    }

    package func heads(userRow: Int64) throws -> [Entitlement] {
        let select = statements.heads
        select.bind(userRow, at: 1)
        defer { select.reset() }
        var heads: [Entitlement] = []
        while try select.step() { heads.append(Entitlement(row: select, from: 0)) }
        return heads
    }

    package func earliestDueHead(notAfter nowMs: Int64) throws -> (userRow: Int64, dueMs: Int64, head: Entitlement)? {
        let select = try db.prepare(ChangeRecorderSQL.earliestDueSQL)
        select.bind(nowMs, at: 1)
        defer { select.reset() }
        guard try select.step() else { return nil }
        return (select.int64(at: 0), select.int64(at: 1), Entitlement(row: select, from: 2))
    }

    package func append(
        _ transition: EntitlementTransition, userRow: Int64, at occurredAtMs: Int64, cause: String
    ) throws {
        let insert = statements.append
        insert.bind(userRow, at: 1)
        insert.bind(occurredAtMs, at: 2)
        insert.bind(transition.previousState?.rawValue, at: 3)
        insert.bind(cause, at: 4)
        transition.entitlement.bind(to: insert, from: 5)
        try db.executeDeferred(insert)
    }

    /// Moves the user's heads from `before` to `after` (evaluated at `instantMs`); a chain the
    /// user lost stays, withdrawn and never due.
    ///
    /// An unchanged head is not rewritten unless `consumingDue`: its stored due instant was
    /// computed from the same entitlement and is still ahead (a passed one is consumed by the
    /// due pass first, which always rewrites, moving the due past the instant it handled).
    package func moveHeads(userRow: Int64, before: [Entitlement], after: [Entitlement], at instantMs: Int64,
                   consumingDue: Bool = false) throws {
        for entitlement in after
        where consumingDue || !before.contains(entitlement) {
            try putHead(entitlement, userRow: userRow,
                        nextDueMs: EntitlementTransitions.nextDueInstant(of: entitlement, after: instantMs))
        }
        for previous in before
        where !after.contains(where: { $0.originalTransactionID == previous.originalTransactionID }) {
            let withdrawn = EntitlementTransitions.withdrawn(previous)
            if consumingDue || withdrawn != previous { try putHead(withdrawn, userRow: userRow, nextDueMs: nil) }
        }
    }

    private func putHead(_ entitlement: Entitlement, userRow: Int64, nextDueMs: Int64?) throws {
        let put = statements.putHead
        put.bind(userRow, at: 1)
        put.bind(nextDueMs, at: 2)
        entitlement.bind(to: put, from: 3)
        try db.executeDeferred(put)
    }

    package func newestEventID(userRow: Int64, chainID: String) throws -> String? {
        let find = try db.prepare(newestEventSQL)
        find.bind(userRow, at: 1)
        find.bind(chainID, at: 2)
        defer { find.reset() }
        return try find.step() ? find.string(at: 0) : nil
    }
}

/// ``ChangeRecorder``'s SQL (a generic type cannot hold static stored properties).
package enum ChangeRecorderSQL {
    package static let headsSQL = "SELECT \(Entitlement.columnNames) FROM entitlement_heads WHERE user_rowid = ?"
    package static let earliestDueSQL = """
        SELECT user_rowid, next_due_ms, \(Entitlement.columnNames) FROM entitlement_heads
        WHERE next_due_ms IS NOT NULL AND next_due_ms <= ?
        ORDER BY next_due_ms, user_rowid, original_transaction_id LIMIT 1
        """
    package static let appendSQL = """
        INSERT INTO entitlement_changes (user_rowid, occurred_at_ms, previous_state, cause_event_id,
            \(Entitlement.columnNames))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    package static let putHeadSQL = """
        INSERT INTO entitlement_heads (user_rowid, next_due_ms, \(Entitlement.columnNames))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (user_rowid, original_transaction_id) DO UPDATE SET next_due_ms = excluded.next_due_ms,
            \(Entitlement.updateFromExcluded)
        """
    /// The newest event of a user's chain in history's order; `eventID` as in
    /// ``StoreReaderSQL/historySQL(eventID:productFilter:)``.
    package static func newestEventSQL(eventID: String) -> String {
        """
        SELECT \(eventID) FROM \(HistoryEvent.historyFrom)
        WHERE h.user_rowid = ? AND COALESCE(h.original_transaction_id, CAST(c.original_transaction_id AS TEXT)) = ?
        ORDER BY h.occurred_at_ms DESC, \(eventID) DESC LIMIT 1
        """
    }
}
