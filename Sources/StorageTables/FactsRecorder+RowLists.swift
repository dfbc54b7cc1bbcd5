import Entitlements
import SQLDatabase

/// A write's new transactions, inserted by one statement where the engine binds lists
/// (``StorageEngine/insertsRowLists``), and the history events that look them up, sent after it.
///
/// Why: on PostgreSQL every statement costs the server a bind, an executor start and end and a
/// command tag, whatever its rows: 7 transactions took its backend ~87 us as one list insert
/// against ~118 us as 7 statements (pgbench, pipelined). Events stay one statement each: as one
/// list insert with its lateral lookups they cost ~1.5x their 7 statements. Rows wait here only
/// while nothing else the write sends could read them: ``flushRowLists()`` sends them before
/// any other statement on those tables, after a write's transactions and at its end.
extension FactsRecorder {
    /// Rows waiting for ``flushRowLists()``: the write in progress's only. The writer empties it
    /// before every job, so rows a failed write kept never reach the next one's statements.
    package struct RowLists {
        var transactions: [(transaction: Transaction, chainRow: Int64, productRow: Int64, groupRow: Int64?)] = []
        var events: [(owner: Int64, event: HistoryEvent)] = []

        package init() {}
    }

    /// Keeps `transaction` for the write's one transactions insert, where the engine binds
    /// lists; false where it does not (the caller inserts it alone).
    func listTransaction(_ transaction: Transaction, chainRow: Int64) throws -> Bool {
        guard DB.insertsRowLists, let productRow = try productNameRow(transaction.productID) else { return false }
        let groupRow = try productNameRow(transaction.subscriptionGroupIdentifier)
        rowLists.transactions.append((transaction, chainRow, productRow, groupRow))
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

    /// Sends the kept transactions, then the kept events (which look their transactions up), as
    /// deferred statements; an event its insert added joins the write's ``Tally`` when its result
    /// is read, as ``insertDeferred(_:userRow:target:)`` counts one.
    package func flushRowLists() throws {
        if !rowLists.transactions.isEmpty {
            let rows = rowLists.transactions
            rowLists.transactions.removeAll(keepingCapacity: true)
            guard let insert = statements.insertTransactionList else { preconditionFailure("no list statements") }
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
            DB.bindTextList(rows.map { OwnershipTypeText.stored($0.transaction.inAppOwnershipType) },
                            at: 13, of: insert)
            DB.bindTextList(rows.map(\.transaction.appAccountToken), at: 14, of: insert)
            DB.bindIntegerList(rows.map { StorageCodes.code($0.transaction.environment) }, at: 15, of: insert)
            DB.bindTextList(rows.map { $0.transaction.declaredProductType?.rawValue }, at: 16, of: insert)
            try db.executeDeferred(insert)
        }
        let events = rowLists.events
        rowLists.events.removeAll(keepingCapacity: true)
        for (owner, event) in events {
            try db.executeDeferred(bindInsert(event, userRow: owner, target: nil)) { [tally] changed in
                guard changed > 0 else { return }
                tally.addedEvents.append((owner, event))
                tally.newEvents += 1
            }
        }
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
}
