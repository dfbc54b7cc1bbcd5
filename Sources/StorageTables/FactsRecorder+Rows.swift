import EntitlementPorts
import Entitlements
import SQLDatabase

/// The row-level statements of ``FactsRecorder``.
extension FactsRecorder {

    package func storedTransaction(_ transactionID: String) throws -> (row: Int64, value: Transaction)? {
        let find = statements.storedTransaction
        DB.bindDecimalID(transactionID, at: 1, of: find)
        defer { find.reset() }
        guard try find.step() else { return nil }
        return (find.int64(at: 16), Transaction(row: find))
    }

    /// Whether none of `transactionIDs` is stored: one statement per 16 ids, instead of one
    /// insert-or-look per transaction (a round trip each on a server).
    package func noneStored(_ transactionIDs: [String]) throws -> Bool {
        var start = 0
        while start < transactionIDs.count {
            let (find, taken) = bindLookup(transactionIDs[start...])
            start += taken
            defer { find.reset() }
            if try find.step() { return false }
        }
        return true
    }

    /// Every stored transaction of the chain in `chainRow`.
    package func storedTransactions(chainRow: Int64) throws -> [Transaction] {
        let find = try db.prepare("""
            SELECT \(Transaction.selectColumns)
            FROM transactions t JOIN chains c ON c.id = t.chain_rowid WHERE t.chain_rowid = ?
            """)
        find.bind(chainRow, at: 1)
        defer { find.reset() }
        var transactions: [Transaction] = []
        while try find.step() { transactions.append(Transaction(row: find)) }
        return transactions
    }

    /// Whether an event with `eventID` is stored, owned or still waiting for an owner.
    package func isRecorded(_ eventID: String) throws -> Bool {
        let find = try db.prepare("""
            SELECT 1 FROM history_events WHERE event_id = ?1 UNION ALL SELECT 1 FROM pending_events WHERE event_id = ?2
            """)
        DB.bindHistoryEventID(eventID, at: 1, of: find)
        find.bind(eventID, at: 2)
        defer { find.reset() }
        return try find.step()
    }

    /// Inserts `transaction`; with `unlessStored`, returns false instead of failing when its id
    /// is stored already (then nothing changed but, perhaps, its product names being stored).
    @discardableResult
    package func insert(_ transaction: Transaction, chainRow: Int64, unlessStored: Bool = false) throws -> Bool {
        try bindInsert(transaction, chainRow: chainRow, unlessStored: unlessStored).execute()
        return db.changes > 0
    }

    /// Inserts `transaction` as a deferred statement (``SQLConnection/executeDeferred(_:then:)``):
    /// for a caller that needs no answer, as when its id was just looked up and not found.
    /// Where the engine binds lists it waits for the write's one insert (``flushRowLists()``).
    package func insertDeferred(_ transaction: Transaction, chainRow: Int64) throws {
        if try listTransaction(transaction, chainRow: chainRow) { return }
        try db.executeDeferred(bindInsert(transaction, chainRow: chainRow, unlessStored: false))
    }

    private func bindInsert(_ transaction: Transaction, chainRow: Int64, unlessStored: Bool) throws -> DB.Statement {
        let productRow = try productNameRow(transaction.productID)
        let groupRow = try productNameRow(transaction.subscriptionGroupIdentifier)
        let insert = unlessStored ? statements.insertTransactionUnlessStored : statements.insertTransaction
        DB.bindDecimalID(transaction.transactionID, at: 1, of: insert)
        insert.bind(chainRow, at: 2)
        insert.bind(productRow, at: 3)
        insert.bind(transaction.purchaseDateMs, at: 4)
        insert.bind(transaction.originalPurchaseDateMs, at: 5)
        insert.bind(transaction.expiresDateMs, at: 6)
        insert.bind(transaction.cancellationDateMs, at: 7)
        insert.bind(transaction.isTrialPeriod, at: 8)
        insert.bind(transaction.isInIntroOfferPeriod, at: 9)
        insert.bind(transaction.isUpgraded, at: 10)
        insert.bind(groupRow, at: 11)
        DB.bindDecimalID(transaction.webOrderLineItemID, at: 12, of: insert)
        insert.bind(OwnershipTypeText.stored(transaction.inAppOwnershipType), at: 13)
        insert.bind(transaction.appAccountToken, at: 14)
        insert.bind(StorageCodes.code(transaction.environment), at: 15)
        insert.bind(transaction.declaredProductType?.rawValue, at: 16)
        return insert
    }

    /// Writes back the fields ``Transaction/merged(with:)`` may change.
    package func update(_ transaction: Transaction, row: Int64) throws {
        let groupRow = try productNameRow(transaction.subscriptionGroupIdentifier)
        let update = statements.updateTransaction
        update.bind(transaction.expiresDateMs, at: 1)
        update.bind(transaction.cancellationDateMs, at: 2)
        update.bind(transaction.isUpgraded, at: 3)
        update.bind(groupRow, at: 4)
        DB.bindDecimalID(transaction.webOrderLineItemID, at: 5, of: update)
        update.bind(OwnershipTypeText.stored(transaction.inAppOwnershipType), at: 6)
        update.bind(transaction.appAccountToken, at: 7)
        update.bind(transaction.declaredProductType?.rawValue, at: 8)
        update.bind(row, at: 9)
        try db.executeDeferred(update)
    }

    /// Before a transaction's expiry moves (a renewal-date extension), writes its old expiry
    /// into the events that read it through their pointer, so they keep saying what they said
    /// (`history_events_expiry_through_pointer`). Only the chain owner's events are looked at,
    /// through the history key; an event left with a previous owner after a transfer reads the
    /// new expiry. PostgreSQL stores every event's expiry and has nothing to do.
    package func keepEventExpiries(_ expiresDateMs: Int64, transactionRow: Int64) throws {
        guard DB.historyExpiryMayPoint else { return }
        let keep = try db.prepare("""
            UPDATE history_events SET expires_at_ms = ?1
            WHERE user_rowid = (SELECT c.user_rowid FROM transactions t JOIN chains c ON c.id = t.chain_rowid
                                WHERE t.id = ?2)
                AND transaction_rowid = ?2 AND expires_at_ms IS NULL
            """)
        keep.bind(expiresDateMs, at: 1)
        keep.bind(transactionRow, at: 2)
        try keep.execute()
    }

    /// Keeps the renewal info with the newest signed date; an older or equal one changes nothing.
    package func upsert(_ info: RenewalInfo, chainRow: Int64) throws {
        let autoRenewProductRow = try productNameRow(info.autoRenewProductID)
        let upsert = statements.upsertRenewalInfo
        upsert.bind(chainRow, at: 1)
        upsert.bind(info.autoRenewStatus, at: 2)
        upsert.bind(autoRenewProductRow, at: 3)
        upsert.bind(info.isInBillingRetryPeriod, at: 4)
        upsert.bind(info.gracePeriodExpiresDateMs, at: 5)
        upsert.bind(info.expirationIntent.map { Int64($0) }, at: 6)
        upsert.bind(info.signedDateMs, at: 7)
        try db.executeDeferred(upsert)
    }

    /// The `product_names` row of `name` (a product or group id), stored first when new; nil
    /// for nil (a NULL reference).
    ///
    /// Resolved here once per write (``namesStoredThisWrite``) and bound as a number, instead
    /// of by a name subquery in each transaction and renewal info statement: a receipt's
    /// transactions mostly repeat one product and group, and the subqueries cost two index
    /// descents per row. Compared byte for byte, as the table's `=` does.
    package func productNameRow(_ name: String?) throws -> Int64? {
        guard let name else { return nil }
        if let row = try knownProductNameRow(name) { return row }
        let store = statements.storeProductName
        store.bind(name, at: 1)
        try store.execute()
        guard let row = try knownProductNameRow(name) else {
            throw StoreError(code: .storageFailure, message: "a product name was not stored; retry later")
        }
        return row
    }

    /// The row of `name` if this transaction holds one (nil if none), remembered in
    /// ``namesStoredThisWrite`` for the rest of the write.
    package func knownProductNameRow(_ name: String) throws -> Int64? {
        if let known = namesStoredThisWrite.first(where: { $0.name.hasSameBytes(as: name) }) {
            return known.row
        }
        if let committed = committedNames[ExactID(name)] { return committed }
        guard let row = try storedProductNameRow(name) else { return nil }
        namesStoredThisWrite.append((name, row))
        return row
    }

    private func storedProductNameRow(_ name: String) throws -> Int64? {
        let find = statements.findProductName
        find.bind(name, at: 1)
        defer { find.reset() }
        return try find.step() ? find.int64(at: 0) : nil
    }

    /// Inserts `event` into a user's history; `false` when its id was already recorded.
    ///
    /// `target`: the transaction the event was derived from, when the caller knows its row;
    /// an event naming it exactly is stored pointing at it without a lookup. An actor or reason
    /// (an operator's, or Apple's reason for a consumption request) is written with it.
    package func insert(_ event: HistoryEvent, userRow: Int64, target: HistoryPointerTarget? = nil) throws -> Bool {
        try flushRowLists()
        try bindInsert(event, userRow: userRow, target: target).execute()
        guard db.changes > 0 else { return false }
        if !event.actor.isEmpty || !event.reason.isEmpty {
            let update = try db.prepare(Grant.eventActorSQL)
            update.bind(event.actor, at: 1)
            update.bind(event.reason, at: 2)
            DB.bindHistoryEventID(event.eventID, at: 3, of: update)
            try update.execute()
        }
        addedEvents.append((userRow, event))
        return true
    }

    /// ``insert(_:userRow:target:)`` as a deferred statement: an event it adds joins
    /// the write's ``addedEvents`` and counts in its ``Tally`` when its result is read. Where the
    /// engine binds lists a plain event waits for the write's one insert (``flushRowLists()``).
    package func insertDeferred(_ event: HistoryEvent, userRow: Int64, target: HistoryPointerTarget? = nil) throws {
        if listEvent(event, userRow: userRow, target: target) { return }
        try flushRowLists()
        try db.executeDeferred(bindInsert(event, userRow: userRow, target: target)) { [tally] changed in
            guard changed > 0 else { return }
            tally.addedEvents.append((userRow, event))
            tally.newEvents += 1
        }
        guard !event.actor.isEmpty || !event.reason.isEmpty else { return }
        // Sent behind the insert without waiting for it: it names only a row without an actor
        // or reason, so an event recorded before (a replay) keeps the first ones.
        let update = try db.prepare(Grant.newEventActorSQL)
        update.bind(event.actor, at: 1)
        update.bind(event.reason, at: 2)
        DB.bindHistoryEventID(event.eventID, at: 3, of: update)
        try db.executeDeferred(update)
    }

    func bindInsert(_ event: HistoryEvent, userRow: Int64, target: HistoryPointerTarget?) -> DB.Statement {
        if let target, target.isNamed(by: event) {
            Self.bindPointing(event, owner: userRow, target: target, to: statements.insertPointingHistoryEvent)
            return statements.insertPointingHistoryEvent
        }
        Self.bind(event, owner: userRow, to: statements.insertHistoryEvent)
        return statements.insertHistoryEvent
    }

    /// Binds ``HistoryEvent/insertPointingHistorySQL``'s nine parameters; the expiry as NULL
    /// where the engine reads it through the pointer and the target's is the event's
    /// (`history_events_expiry_through_pointer`).
    package static func bindPointing(_ event: HistoryEvent, owner: Int64, target: HistoryPointerTarget,
                             to statement: DB.Statement) {
        DB.bindHistoryEventID(event.eventID, at: 1, of: statement)
        statement.bind(owner, at: 2)
        statement.bind(StorageCodes.code(event.kind), at: 3)
        statement.bind(event.occurredAtMs, at: 4)
        let shared = DB.historyExpiryMayPoint && target.expiresDateMs == event.expiresAtMs
        statement.bind(shared ? nil : event.expiresAtMs, at: 5)
        statement.bind(StorageCodes.code(event.environment), at: 6)
        statement.bind(StorageCodes.code(event.source), at: 7)
        statement.bind(event.appleNotificationType, at: 8)
        statement.bind(target.row, at: 9)
    }

    /// Binds an event row's eleven columns, in the order both event tables declare them; the
    /// second column is the owner (a user row for history, a chain row while pending). The
    /// transaction id (6) and original transaction id (7) are bound as `transactions` and
    /// `chains` keep them, for the history insert's lookup; the event tables' own TEXT columns
    /// store them as their text either way. The event id (1) is
    /// bound as `history_events` keeps it, or as text for `pending_events` (`pending`), which
    /// then gets it as history keeps it in 12, for its check against history.
    package static func bind(_ event: HistoryEvent, owner: Int64, to statement: DB.Statement, pending: Bool = false) {
        if pending {
            statement.bind(event.eventID, at: 1)
            DB.bindHistoryEventID(event.eventID, at: 12, of: statement)
        } else {
            DB.bindHistoryEventID(event.eventID, at: 1, of: statement)
        }
        statement.bind(owner, at: 2)
        statement.bind(StorageCodes.code(event.kind), at: 3)
        statement.bind(event.occurredAtMs, at: 4)
        statement.bind(event.productID, at: 5)
        DB.bindDecimalID(event.transactionID, at: 6, of: statement)
        DB.bindDecimalID(event.originalTransactionID, at: 7, of: statement)
        statement.bind(event.expiresAtMs, at: 8)
        statement.bind(StorageCodes.code(event.environment), at: 9)
        statement.bind(StorageCodes.code(event.source), at: 10)
        statement.bind(event.appleNotificationType, at: 11)
    }
}
