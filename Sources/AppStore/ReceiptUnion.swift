import Entitlements

/// The transactions and renewal infos of one receipt, merged the way Apple's data requires.
///
/// `receipt.in_app` is frozen when the receipt was created and misses later renewals;
/// `latest_receipt_info` is current but only for auto-renewables (consumables may appear only
/// in `in_app`). So the result is the union by `transaction_id`, where the latest info wins a
/// conflict. Shared by verifyReceipt responses and V1 `unified_receipt`, so both merge alike.
struct ReceiptUnion {
    /// A transaction id's entry so far, and which source (numbered from 1 in the order added) it came from.
    private struct Entry {
        var source = 0
        var transaction: Transaction?
    }

    private var entries: [String: Entry] = [:]
    private var sources = 0
    private(set) var renewalInfos: [String: RenewalInfo] = [:]

    /// Adds entries from one source; call in increasing precedence (`in_app` first, then
    /// `latest_expired_receipt_info`, then `latest_receipt_info`), so a later source replaces
    /// an earlier one's entry with the same `transaction_id`.
    ///
    /// Within one source Apple does not repeat a transaction; should it, the choice must not
    /// depend on array order, so the entry that says more wins (a cancellation date, then the
    /// later expiry, then the later purchase).
    mutating func add(_ infos: [AppleJSONObject], environment: Environment) throws(AppStoreFormatError) {
        var transactions: [Transaction] = []
        transactions.reserveCapacity(infos.count)
        for info in infos {
            transactions.append(try Transaction(receiptInfo: info, environment: environment))
        }
        add(transactions)
    }

    /// ``add(_:environment:)`` for entries already mapped (``VerifyReceiptAnswerReader``).
    ///
    /// Each transaction is hashed once, straight into the union: an entry an earlier source left is
    /// replaced, one this source left is kept when it says more. The same union as building each
    /// source's own dictionary and merging it with the newer winning, which hashed every id two or
    /// three times and copied every transaction twice (~48k of SubmitReceipt's instructions for a
    /// 7 + 7 answer, callgrind of distinct calls).
    mutating func add(_ mapped: [Transaction]) {
        guard !mapped.isEmpty else { return }
        sources += 1
        let source = sources
        // Reserved up front: growing a dictionary rehashes every id it already holds.
        if entries.capacity < entries.count + mapped.count {
            entries.reserveCapacity(entries.count + mapped.count)
        }
        for transaction in mapped {
            Self.keep(transaction, from: source, in: &entries[transaction.transactionID, default: Entry()])
        }
    }

    private static func keep(_ transaction: Transaction, from source: Int, in entry: inout Entry) {
        if entry.source == source, let seen = entry.transaction, saysMore(seen, than: transaction) { return }
        entry = Entry(source: source, transaction: transaction)
    }

    /// Adds `pending_renewal_info` entries, one per chain.
    ///
    /// Apple sends one entry per `original_transaction_id`; duplicates are resolved by a total
    /// order over their fields, never by position, so shuffled arrays give the same result.
    mutating func addPendingRenewals(
        _ infos: [AppleJSONObject], observedAtMs: Int64
    ) throws(AppStoreFormatError) {
        var renewals: [RenewalInfo] = []
        for info in infos {
            renewals.append(try RenewalInfo(pendingRenewal: info, observedAtMs: observedAtMs))
        }
        addPendingRenewals(renewals)
    }

    /// ``addPendingRenewals(_:observedAtMs:)`` for entries already mapped.
    mutating func addPendingRenewals(_ renewals: [RenewalInfo]) {
        for renewal in renewals {
            if let seen = renewalInfos[renewal.originalTransactionID],
               Self.sortKey(seen) >= Self.sortKey(renewal) {
                continue
            }
            renewalInfos[renewal.originalTransactionID] = renewal
        }
    }

    /// Transactions by chain, oldest first; renewal infos by chain id.
    ///
    /// Sorts the transactions' positions, then takes each once: sorting the values themselves
    /// copied and destroyed a whole `Transaction` (a dozen strings) at every step of the
    /// insertion sort, ~13k of its ~20k instructions for a 7-transaction answer (callgrind of
    /// distinct SubmitReceipt calls). The same stable sort by the same order: the same result.
    var sortedTransactions: [Transaction] {
        let values = entries.values.compactMap(\.transaction)
        return values.indices.sorted { Transaction.chainOrder(values[$0], values[$1]) }.map { values[$0] }
    }

    var sortedRenewalInfos: [RenewalInfo] {
        renewalInfos.values.sorted {
            Transaction.id($0.originalTransactionID, precedes: $1.originalTransactionID)
        }
    }

    private static func saysMore(_ lhs: Transaction, than rhs: Transaction) -> Bool {
        if (lhs.cancellationDateMs != nil) != (rhs.cancellationDateMs != nil) {
            return lhs.cancellationDateMs != nil
        }
        if rhs.isOrdered(before: lhs) { return true }
        if lhs.isOrdered(before: rhs) { return false }
        return String(describing: lhs) >= String(describing: rhs)
    }

    private static func sortKey(_ info: RenewalInfo) -> String {
        [
            String(info.gracePeriodExpiresDateMs ?? -1), String(info.isInBillingRetryPeriod),
            String(info.autoRenewStatus), info.autoRenewProductID ?? "",
            String(info.expirationIntent ?? -1),
        ].joined(separator: "\u{1}")
    }
}
