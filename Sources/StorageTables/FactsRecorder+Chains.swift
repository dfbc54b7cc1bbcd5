import EntitlementPorts
import Entitlements
import SQLDatabase

/// Chain rows and their owners, including chains no user owns yet.
extension FactsRecorder {
    /// A `chains` row and its owner; `nil` owner for a chain only notifications have named.
    package struct StoredChain {
        package var row: Int64
        package var ownerRow: Int64?
        package var ownerID: String?
    }

    package func findChain(_ chainID: String) throws -> StoredChain? {
        let find = statements.findChain
        DB.bindDecimalID(chainID, at: 1, of: find)
        defer { find.reset() }
        guard try find.step() else { return nil }
        return StoredChain(row: find.int64(at: 0), ownerRow: find.optionalInt64(at: 1),
                           ownerID: find.optionalString(at: 2))
    }

    /// Inserts a chain owned by `userRow`, or by nobody yet when it is `nil`.
    package func insertChain(_ chainID: String, userRow: Int64?, now: Int64) throws -> Int64 {
        let insert = statements.insertChain
        DB.bindDecimalID(chainID, at: 1, of: insert)
        insert.bind(userRow, at: 2)
        insert.bind(userRow == nil ? nil : now, at: 3)
        return try returnedID(insert)
    }

    /// Runs an INSERT ending in ``StorageEngine/returningIDClause`` and answers the new row's
    /// id: the row RETURNING gives, or, without the clause, the one the engine reports.
    package func returnedID(_ insert: DB.Statement) throws -> Int64 {
        defer { insert.reset() }
        if try insert.step() { return insert.int64(at: 0) }
        guard DB.returningIDClause.isEmpty, let id = db.insertedRowID else {
            throw StoreError(code: .storageFailure,
                             message: "an insert returned no id (SQL: \(insert.sql)); retry later")
        }
        return id
    }

    package func setOwner(of chainRow: Int64, to userRow: Int64, now: Int64) throws {
        let move = try db.prepare("UPDATE chains SET user_rowid = ?, owned_since_ms = ? WHERE id = ?")
        move.bind(userRow, at: 1)
        move.bind(now, at: 2)
        move.bind(chainRow, at: 3)
        try move.execute()
    }

    /// Stores `event` in the owner's history, or keeps it with the chain until one binds it;
    /// `false` when its id was already recorded in either place. `target` as in
    /// ``insert(_:userRow:target:)`` (pending events never point).
    package func insert(
        _ event: HistoryEvent, into chain: StoredChain, target: HistoryPointerTarget? = nil
    ) throws -> Bool {
        if let ownerRow = chain.ownerRow { return try insert(event, userRow: ownerRow, target: target) }
        try flushEventList()
        let insert = statements.insertPendingEvent
        Self.bind(event, owner: chain.row, to: insert, pending: true)
        try insert.execute()
        return db.changes > 0
    }

    /// ``insert(_:into:target:)`` as a deferred statement, counted as
    /// ``insertDeferred(_:userRow:target:)`` counts.
    package func insertDeferred(_ event: HistoryEvent, into chain: StoredChain, target: HistoryPointerTarget? = nil)
        throws {
        if let ownerRow = chain.ownerRow { return try insertDeferred(event, userRow: ownerRow, target: target) }
        try flushEventList()
        let insert = statements.insertPendingEvent
        Self.bind(event, owner: chain.row, to: insert, pending: true)
        try db.executeDeferred(insert) { [tally] changed in
            if changed > 0 { tally.newEvents += 1 }
        }
    }

    /// Moves the chain's waiting events into `userRow`'s history; returns how many it added.
    ///
    /// Each is inserted with its own columns (adopted events never point), its id bound as
    /// history keeps it (``StorageEngine/bindHistoryEventID(_:at:of:)``), which SQL copying
    /// the pending row's text could not do.
    package func adoptPendingEvents(chainRow: Int64, userRow: Int64) throws -> Int {
        let waiting = try db.prepare("SELECT \(HistoryEvent.selectColumns) FROM pending_events h WHERE chain_rowid = ?")
        waiting.bind(chainRow, at: 1)
        var events: [HistoryEvent] = []
        while try waiting.step() { events.append(HistoryEvent(row: waiting)) }
        waiting.reset()
        let adopt = try db.prepare("""
            INSERT INTO history_events (
                event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
                original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT (event_id) DO NOTHING
            """)
        var adopted = 0
        for event in events {
            addedEvents.append((userRow, event))
            Self.bind(event, owner: userRow, to: adopt)
            try adopt.execute()
            adopted += db.changes
        }
        let clear = try db.prepare("DELETE FROM pending_events WHERE chain_rowid = ?")
        clear.bind(chainRow, at: 1)
        try clear.execute()
        return adopted
    }
}
