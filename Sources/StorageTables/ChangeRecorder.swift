import EntitlementPorts
import Entitlements
import SQLDatabase

/// Derives and appends the entitlement changes inside the writer's open transaction.
///
/// Runs on the writer thread only, on the writer's connection, so each change commits with the
/// fact that caused it (or, for a time-driven change, with the due head it consumes): a crash
/// loses or invents none. A change is a state difference between what was last announced for a
/// user's chain (`entitlement_heads`) and CheckEntitlement's answer now
/// (``EntitlementTransitions``); the head then moves to the answer and keeps the next instant
/// at which time alone can change it, which is what the due timer reads.
///
/// Cost per write: the heads and facts of each affected user (already in SQLite's page cache:
/// the recorder just wrote them), the rules once per user, and rows only for actual changes
/// and moved heads. Nothing runs on the read path.
package final class ChangeRecorder<DB: StorageEngine> {
    package let db: DB
    package let catalog: Catalog
    /// This database's random log id, the prefix of every change id.
    package let logID: String
    /// The statements every write runs, held rather than looked up: the connection's cache
    /// hashes the SQL text on each lookup, which profiling showed as a third of this cost.
    package let statements: Statements
    /// ``ChangeRecorderSQL/newestEventSQL(eventID:)`` for this engine.
    package let newestEventSQL = ChangeRecorderSQL.newestEventSQL(eventID: DB.historyEventIDText("h.event_id"))

    package init(db: DB, catalog: Catalog) throws {
        self.db = db
        self.catalog = catalog
        logID = try db.scalarString("SELECT log_id FROM change_log_identity") ?? "0"
        statements = try Statements(db)
    }

    /// Announces how the write just recorded changed `userIDs`' entitlements at `nowMs`; each
    /// change names its cause among `addedEvents` (``ChangeCause``), asked for after this
    /// recorder's first read, which reads the write's deferred inserts' results with it (one
    /// wait). Returns how many it appended.
    ///
    /// The facts it reads for each user (the write's result, read exactly as
    /// ``UserFacts/readTables(_:userID:)`` reads them for the `user_facts` record) go into
    /// `readFacts`, so the writer can build the user's record from them instead of reading the
    /// same rows again before COMMIT.
    /// `knownRows`: user rows the write found or created (each a lookup saved).
    package func recordChanges(
        of userIDs: Set<ExactID>, nowMs: Int64, addedEvents: () -> [(owner: Int64, event: HistoryEvent)],
        readFacts: inout [ExactID: UserFacts], knownRows: [ExactID: Int64] = [:]
    )
        throws -> Int
    {
        var appended = 0
        for user in userIDs.sorted() {
            guard let userRow = try knownRows[user] ?? userRow(user.text) else { continue }
            // Three reads sent together: one wait on a server instead of three.
            statements.heads.bind(userRow, at: 1)
            try db.prefetch(statements.heads)
            statements.userFacts.bind(user.text, at: 1)
            try db.prefetch(statements.userFacts)
            statements.grants.bind(userRow, at: 1)
            try db.prefetch(statements.grants)
            let before = try heads(userRow: userRow)
            var facts = try UserFacts.readTables(statements.userFacts, userID: user.text)
            facts.grants = try grants(userRow: userRow)
            readFacts[user] = facts
            let after = EntitlementRules.entitlements(for: facts, at: .now(nowMs), catalog: catalog)
            for transition in EntitlementTransitions.between(before: before, after: after) {
                let chainID = transition.entitlement.originalTransactionID
                let cause = try ChangeCause.eventID(owner: userRow, chainID: chainID, addedByWrite: addedEvents()) {
                    try newestEventID(userRow: userRow, chainID: chainID)
                }
                try append(transition, userRow: userRow, at: nowMs, cause: cause)
                appended += 1
            }
            try moveHeads(userRow: userRow, before: before, after: after, at: nowMs)
        }
        return appended
    }

    /// Appends the time-driven changes due by `nowMs`, one head at a time in due order so each
    /// user's changes stay in time order, at most `limit` heads. Returns the changes appended
    /// and the latest lag (now minus the instant) among the heads consumed, for the metrics.
    package func recordDueChanges(nowMs: Int64, limit: Int) throws -> (appended: Int, headsDue: Int, lagMs: Int64) {
        var appended = 0
        var consumed = 0
        var lagMs: Int64 = 0
        var factsByUser: [Int64: UserFacts] = [:]
        while consumed < limit, let (userRow, dueMs, head) = try earliestDueHead(notAfter: nowMs) {
            consumed += 1
            lagMs = max(lagMs, nowMs - dueMs)
            let facts = try factsByUser[userRow] ?? facts(userRow: userRow)
            factsByUser[userRow] = facts
            let current = EntitlementRules.entitlements(for: facts, at: .now(dueMs), catalog: catalog)
                .filter { $0.originalTransactionID == head.originalTransactionID }
            for transition in EntitlementTransitions.between(before: [head], after: current) {
                try append(transition, userRow: userRow, at: dueMs, cause: "")
                appended += 1
            }
            try moveHeads(userRow: userRow, before: [head], after: current, at: dueMs, consumingDue: true)
        }
        return (appended, consumed, lagMs)
    }

    /// The earliest instant any head is due; one step down the partial index.
    package func nextDueInstant() throws -> Int64? {
        try db.scalarInt64("SELECT MIN(next_due_ms) FROM entitlement_heads WHERE next_due_ms IS NOT NULL")
    }

    /// Deletes up to `limit` of the oldest changes that occurred before `cutoffMs`, stopping
    /// at the first newer one so what is retained stays one unbroken range of sequences.
    package func pruneChanges(occurredBefore cutoffMs: Int64, limit: Int) throws -> Int {
        let oldest = try db.prepare(
            "SELECT sequence, occurred_at_ms FROM entitlement_changes ORDER BY sequence LIMIT ?")
        oldest.bind(limit, at: 1)
        var through: Int64?
        while try oldest.step(), oldest.int64(at: 1) < cutoffMs { through = oldest.int64(at: 0) }
        oldest.reset()
        guard let through else { return 0 }
        let delete = try db.prepare("DELETE FROM entitlement_changes WHERE sequence <= ?")
        delete.bind(through, at: 1)
        try delete.execute()
        let pruned = db.changes
        if let recordSQL = DB.recordPrunedThroughSQL {
            let record = try db.prepare(recordSQL)
            record.bind(through, at: 1)
            try record.execute()
        }
        return pruned
    }

    /// The newest sequence ever assigned (pruning never lowers it).
    package func latestSequence() throws -> Int64 {
        try db.scalarInt64(DB.latestChangeSequenceSQL) ?? 0
    }
}
