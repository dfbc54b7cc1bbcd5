import EntitlementPorts
import Entitlements
import SQLDatabase

/// Storing transactions so that refunds and their reversals commute.
///
/// Apple can refund a transaction, reverse the refund (REFUND_REVERSED) and refund it again,
/// and the notifications arrive in any order. The rule, applied on every path (notifications
/// and receipts alike): a reversal at R removes every cancellation dated at or before R and
/// makes later copies carrying such a date ignored; a cancellation dated after the latest
/// reversal stands. The stored cancellation is then always the latest cancellation seen that
/// is after the latest reversal seen, whatever the arrival order.
///
/// The cancellation's own date (Apple's `cancellation_date_ms` / `revocationDate`) is compared,
/// not the carrier's signed date: a reversed refund was granted before the reversal, and a new
/// refund is dated after it, whichever notification or receipt carries them; receipts have no
/// signed date at all, and a stale verifyReceipt answer still showing the reversed refund
/// shows it with its old date. Upgrades also set a cancellation date (the upgrade time), which
/// is not a refund: reversals never touch an upgraded transaction's.
extension FactsRecorder {
    /// Stores `transaction` in `chainRow`, merged with any stored copy; returns whether it is
    /// new, the history events it derives (to be stored by the caller for the owner) and the
    /// existing event `notification` confirms, if any (see ``confirm(_:)``).
    ///
    /// `chainID`: the original transaction id `chainRow` is stored with, byte for byte (a
    /// dictionary of chains by id may have found the row under a canonically equal spelling).
    /// `chainIsNew`: this write created the chain, so the transaction is almost surely not
    /// stored; it is then inserted unless stored, without looking it up first, and looked up
    /// and merged as usual only if it was (an id Apple reused across chains, a repeated one).
    /// `isAbsent`: the caller knows its id is not stored (``noneStored(_:)``, under the write
    /// lock): it is inserted as a deferred statement, and an insert that fails fails the write.
    package func store(_ transaction: Transaction, chainRow: Int64, chainID: String, source: HistoryEvent.Source,
               notification: NotificationReport? = nil, chainIsNew: Bool = false, isAbsent: Bool = false) throws
        -> (isNew: Bool, events: [HistoryEvent], confirmation: HistoryConfirmation?, target: HistoryPointerTarget?) {
        // Only an insert into a chain created just now may wait in the write's row lists: any
        // other path reads or changes stored transactions.
        if !isAbsent { try flushRowLists() }
        // Only a cancellation needs the reversal: the common path costs no extra query.
        try noteRollupChain(chainRow, isNew: chainIsNew)
        let reversedAt = transaction.cancellationDateMs == nil
            ? nil : try refundReversedAt(transaction.transactionID)
        let incoming = transaction.withRefundReversed(at: reversedAt)
        if isAbsent {
            let (events, confirmation) = try derive(transaction, stored: nil, chainRow: chainRow,
                                                    reversedAt: reversedAt, source: source, notification: notification)
            try insertDeferred(incoming, chainRow: chainRow)
            return (true, events, confirmation, insertedTarget(incoming, chainID: chainID))
        }
        if chainIsNew {
            let (events, confirmation) = try derive(transaction, stored: nil, chainRow: chainRow,
                                                    reversedAt: reversedAt, source: source, notification: notification)
            if try insert(incoming, chainRow: chainRow, unlessStored: true) {
                return (true, events, confirmation, insertedTarget(incoming, chainID: chainID))
            }
        }
        let stored = try storedTransaction(transaction.transactionID)
        let (events, confirmation) = try derive(transaction, stored: stored?.value, chainRow: chainRow,
                                                reversedAt: reversedAt, source: source, notification: notification)
        guard let stored else {
            try insertDeferred(incoming, chainRow: chainRow)
            return (true, events, confirmation, insertedTarget(incoming, chainID: chainID))
        }
        let merged = stored.value.merged(with: incoming)
        if merged != stored.value {
            // Stored in another chain (an id Apple reused): that chain's figures change.
            if !stored.value.originalTransactionID.hasSameBytes(as: chainID) {
                try noteRollupChain(ofTransaction: transaction.transactionID)
            }
            if let before = stored.value.expiresDateMs, merged.expiresDateMs != before {
                try keepEventExpiries(before, transactionRow: stored.row)
            }
            try update(merged, row: stored.row)
        }
        return (false, events, confirmation, HistoryPointerTarget(row: stored.row, storedAs: merged))
    }

    /// The history events and the confirmation `transaction` derives against its `stored` copy.
    private func derive(
        _ transaction: Transaction, stored: Transaction?, chainRow: Int64, reversedAt: Int64?,
        source: HistoryEvent.Source, notification: NotificationReport?
    ) throws -> (events: [HistoryEvent], confirmation: HistoryConfirmation?) {
        var events = HistoryDerivation.events(incoming: transaction, stored: stored,
                                              source: source, refundReversedAtMs: reversedAt,
                                              notification: notification)
        var confirmation = HistoryDerivation.confirmation(of: transaction, stored: stored,
                                                          by: notification)
        // Only an upgrade being reported or named looks at the chain: resubmissions cost nothing.
        if transaction.isUpgraded, !events.isEmpty || confirmation != nil {
            try flushRowLists()
            (events, confirmation) = try HistoryDerivation.joiningNewPlanUpgrade(
                events: events, confirmation: confirmation, of: transaction,
                chain: try storedTransactions(chainRow: chainRow), isRecorded: isRecorded)
        }
        return (events, confirmation)
    }

    /// The row the insert just made, for events naming it (nil where the engine reports none).
    private func insertedTarget(_ inserted: Transaction, chainID: String) -> HistoryPointerTarget? {
        db.insertedRowID.map {
            HistoryPointerTarget(row: $0, transactionID: inserted.transactionID, productID: inserted.productID,
                                 originalTransactionID: chainID, expiresDateMs: inserted.expiresDateMs)
        }
    }

    /// Records that Apple reversed the refund of `transactionID` at `reversedAtMs` and clears a
    /// stored cancellation it covers; returns the owner of the transaction's chain, if any.
    package func reverseRefund(of transactionID: String, at reversedAtMs: Int64) throws -> String? {
        let record = try db.prepare("""
            INSERT INTO refund_reversals (transaction_id, reversed_at_ms) VALUES (?, ?)
            ON CONFLICT (transaction_id) DO UPDATE SET reversed_at_ms = excluded.reversed_at_ms
            WHERE excluded.reversed_at_ms > refund_reversals.reversed_at_ms
            """)
        record.bind(transactionID, at: 1)
        record.bind(reversedAtMs, at: 2)
        try record.execute()
        try noteRollupChain(ofTransaction: transactionID)
        let clear = try db.prepare("""
            UPDATE transactions SET cancellation_date_ms = NULL
            WHERE transaction_id = ? AND cancellation_date_ms <= ? AND is_upgraded = 0
            """)
        DB.bindDecimalID(transactionID, at: 1, of: clear)
        clear.bind(reversedAtMs, at: 2)
        try clear.execute()
        let owner = try db.prepare("""
            SELECT u.user_id FROM transactions t JOIN chains c ON c.id = t.chain_rowid
            JOIN users u ON u.id = c.user_rowid WHERE t.transaction_id = ?
            """)
        DB.bindDecimalID(transactionID, at: 1, of: owner)
        defer { owner.reset() }
        return try owner.step() ? owner.string(at: 0) : nil
    }

    /// The latest time Apple reversed a refund of `transactionID`, if it ever did.
    private func refundReversedAt(_ transactionID: String) throws -> Int64? {
        let find = statements.refundReversedAt
        find.bind(transactionID, at: 1)
        defer { find.reset() }
        return try find.step() ? find.int64(at: 0) : nil
    }
}
