import Entitlements
import SQLDatabase

/// A write's new transactions, inserted by one statement where the engine binds lists
/// (``StorageEngine/insertsRowLists``), with the history events that point at them.
///
/// Why: on PostgreSQL every statement costs the server a bind, an executor start and end and a
/// command tag, whatever its rows: 7 transactions took its backend ~87 us as one list insert
/// against ~118 us as 7 statements (pgbench, pipelined). Their events go in the same statement,
/// pointing at the rows its transactions insert returns, instead of one statement each looking
/// its transaction up (as one list with lateral lookups they cost ~1.5x their 7 statements).
/// Rows wait here only while nothing else the write sends could read them: ``flushRowLists()``
/// sends them before any other statement on those tables, after a write's transactions and at
/// its end.
extension FactsRecorder {
    /// Rows waiting for ``flushRowLists()``: the write in progress's only. The writer empties it
    /// before every job, so rows a failed write kept never reach the next one's statements.
    package struct RowLists {
        var transactions: [ListedTransaction] = []
        var events: [(owner: Int64, event: HistoryEvent)] = []

        package init() {}
    }

    /// A transaction kept for the list insert, with the chain id its row is stored under.
    struct ListedTransaction {
        var transaction: Transaction
        var chainRow: Int64
        var chainID: String
        var productRow: Int64
        var groupRow: Int64?

        /// Whether `event` names this row byte for byte, as ``HistoryPointerTarget/isNamed(by:)``
        /// tests a known row: the general insert's lookup would find this row for it.
        func isNamed(by event: HistoryEvent) -> Bool {
            event.transactionID.hasSameBytes(as: transaction.transactionID)
                && event.productID.hasSameBytes(as: transaction.productID)
                && event.originalTransactionID.hasSameBytes(as: chainID)
        }
    }

    /// Keeps `transaction` for the write's one transactions insert, where the engine binds
    /// lists; false where it does not (the caller inserts it alone).
    func listTransaction(_ transaction: Transaction, chainRow: Int64, chainID: String) throws -> Bool {
        guard DB.insertsRowLists, let productRow = try productNameRow(transaction.productID) else { return false }
        let groupRow = try productNameRow(transaction.subscriptionGroupIdentifier)
        rowLists.transactions.append(ListedTransaction(transaction: transaction, chainRow: chainRow, chainID: chainID,
                                                       productRow: productRow, groupRow: groupRow))
        return true
    }

    /// Keeps `event` until the kept transactions are sent, where the engine binds lists and the
    /// event needs nothing else: no pointer known (its insert looks its transaction up) and no
    /// actor or reason (written by a second statement). False: the caller inserts it now.
    func listEvent(_ event: HistoryEvent, userRow: Int64, target: HistoryPointerTarget?) -> Bool {
        guard DB.insertsRowLists, target.map({ !$0.isNamed(by: event) }) ?? true,
              event.actor.isEmpty, event.reason.isEmpty else { return false }
        rowLists.events.append((userRow, event))
        return true
    }

    /// Before a statement that reads history events but no transactions (a pending event's check
    /// against history): sends the kept rows only when events are among them, so a notification's
    /// transactions still go in one insert while its events wait for an owner.
    func flushEventList() throws {
        if !rowLists.events.isEmpty { try flushRowLists() }
    }

    /// Sends the kept transactions and events as deferred statements: one statement for both
    /// when every kept event names a kept transaction (a new chain's, the common case), else
    /// the transactions' list insert and then an insert per event (which looks its transaction
    /// up), so events keep their order. An event an insert added joins the write's ``Tally``
    /// when its result is read, as ``insertDeferred(_:userRow:target:)`` counts one.
    package func flushRowLists() throws {
        let rows = rowLists.transactions, events = rowLists.events
        rowLists.transactions.removeAll(keepingCapacity: true)
        rowLists.events.removeAll(keepingCapacity: true)
        if !rows.isEmpty, !events.isEmpty,
           events.allSatisfy({ listed in rows.contains { $0.isNamed(by: listed.event) } }) {
            guard let insert = statements.insertTransactionListWithEvents else {
                preconditionFailure("no list statements")
            }
            bindList(rows, to: insert)
            let first = Int32(FactsRecorderSQL.transactionColumns.count)
            DB.bindTextList(events.map(\.event.eventID), at: first + 1, of: insert)
            DB.bindIntegerList(events.map(\.owner), at: first + 2, of: insert)
            DB.bindIntegerList(events.map { StorageCodes.code($0.event.kind) }, at: first + 3, of: insert)
            DB.bindIntegerList(events.map(\.event.occurredAtMs), at: first + 4, of: insert)
            DB.bindIntegerList(events.map(\.event.expiresAtMs), at: first + 5, of: insert)
            DB.bindIntegerList(events.map { StorageCodes.code($0.event.environment) }, at: first + 6, of: insert)
            DB.bindIntegerList(events.map { StorageCodes.code($0.event.source) }, at: first + 7, of: insert)
            DB.bindTextList(events.map(\.event.appleNotificationType), at: first + 8, of: insert)
            DB.bindTextList(events.map(\.event.transactionID), at: first + 9, of: insert)
            try db.executeDeferred(insert) { [tally] added in
                tally.newEvents += added
                // Fewer than all: an id was recorded before its transaction was stored, which no
                // write of this store does; the count cannot tell which, so none is named as a
                // change's cause (ChangeCause then reads the user's history).
                if added == events.count { tally.addedEvents += events }
            }
            return
        }
        if !rows.isEmpty {
            guard let insert = statements.insertTransactionList else { preconditionFailure("no list statements") }
            bindList(rows, to: insert)
            try db.executeDeferred(insert)
        }
        for (owner, event) in events {
            try db.executeDeferred(bindInsert(event, userRow: owner, target: nil)) { [tally] changed in
                guard changed > 0 else { return }
                tally.addedEvents.append((owner, event))
                tally.newEvents += 1
            }
        }
    }

    /// Binds `rows` to the first parameters of either list insert, one list per column of
    /// ``FactsRecorderSQL/transactionColumns``.
    private func bindList(_ rows: [ListedTransaction], to insert: DB.Statement) {
        DB.bindTextList(rows.map(\.transaction.transactionID), at: 1, of: insert)
        DB.bindIntegerList(rows.map(\.chainRow), at: 2, of: insert)
        DB.bindIntegerList(rows.map(\.productRow), at: 3, of: insert)
        DB.bindIntegerList(rows.map(\.transaction.purchaseDateMs), at: 4, of: insert)
        DB.bindIntegerList(rows.map(\.transaction.originalPurchaseDateMs), at: 5, of: insert)
        DB.bindIntegerList(rows.map(\.transaction.expiresDateMs), at: 6, of: insert)
        DB.bindIntegerList(rows.map(\.transaction.cancellationDateMs), at: 7, of: insert)
        DB.bindIntegerList(rows.map { $0.transaction.isTrialPeriod ? 1 : 0 }, at: 8, of: insert)
        DB.bindIntegerList(rows.map { $0.transaction.isInIntroOfferPeriod ? 1 : 0 }, at: 9, of: insert)
        DB.bindIntegerList(rows.map { $0.transaction.isUpgraded ? 1 : 0 }, at: 10, of: insert)
        DB.bindIntegerList(rows.map(\.groupRow), at: 11, of: insert)
        DB.bindTextList(rows.map(\.transaction.webOrderLineItemID), at: 12, of: insert)
        DB.bindTextList(rows.map { OwnershipTypeText.stored($0.transaction.inAppOwnershipType) }, at: 13, of: insert)
        DB.bindTextList(rows.map(\.transaction.appAccountToken), at: 14, of: insert)
        DB.bindIntegerList(rows.map { StorageCodes.code($0.transaction.environment) }, at: 15, of: insert)
        DB.bindTextList(rows.map { $0.transaction.declaredProductType?.rawValue }, at: 16, of: insert)
    }
}

/// The list insert of ``FactsRecorder/flushRowLists()``: each parameter a list of one column's
/// values (``StorageEngine/bindTextList(_:at:of:)``), unnested together into rows.
package enum RowListSQL {
    /// ``FactsRecorderSQL/insertTransaction`` for many rows, over the same column list.
    package static let insertTransactions: String = {
        let columns = FactsRecorderSQL.transactionColumns
        let lists = columns.enumerated().map { "CAST(?\($0.offset + 1) AS \($0.element.listType)[])" }
        return """
            INSERT INTO transactions (\(columns.map(\.name).joined(separator: ", ")))
            SELECT * FROM unnest(\(lists.joined(separator: ", ")))
            """
    }()

    /// The history columns ``insertTransactionsAndTheirEvents`` binds as lists, after the
    /// transactions' (the rest are NULL, or the row its transactions insert returns).
    package static let eventColumns: [(name: String, listType: String)] = [
        ("event_id", "TEXT"), ("user_rowid", "BIGINT"), ("kind", "BIGINT"), ("occurred_at_ms", "BIGINT"),
        ("expires_at_ms", "BIGINT"), ("environment", "BIGINT"), ("source", "BIGINT"),
        ("apple_notification_type", "TEXT"), ("transaction_id", "TEXT"),
    ]

    /// ``insertTransactions``, then each event pointing at the row its transaction id got:
    /// the rows ``HistoryEvent/insertPointingHistorySQL`` stores (PostgreSQL keeps every
    /// event's expiry), in the events' order, one statement. Its count is the events added.
    package static let insertTransactionsAndTheirEvents: String = {
        let first = FactsRecorderSQL.transactionColumns.count
        let lists = eventColumns.enumerated().map { "CAST(?\(first + $0.offset + 1) AS \($0.element.listType)[])" }
        return """
            WITH t AS (\(insertTransactions) RETURNING id, transaction_id)
            INSERT INTO history_events (
                event_id, user_rowid, kind, occurred_at_ms, product_id, transaction_id,
                original_transaction_id, expires_at_ms, environment, source, apple_notification_type,
                transaction_rowid)
            SELECT e.event_id, e.user_rowid, e.kind, e.occurred_at_ms, NULL, NULL, NULL, e.expires_at_ms,
                e.environment, e.source, e.apple_notification_type, t.id
            FROM unnest(\(lists.joined(separator: ", ")))
                WITH ORDINALITY AS e(\(eventColumns.map(\.name).joined(separator: ", ")), position)
                JOIN t ON t.transaction_id = e.transaction_id
            ORDER BY e.position
            ON CONFLICT (event_id) DO NOTHING
            """
    }()
}
