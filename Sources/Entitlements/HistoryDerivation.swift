/// Derives history events from arriving transaction facts; pure and deterministic.
///
/// Event ids come from the source fact ("purchase:<transaction_id>", "refund:<transaction_id>"),
/// so a replayed receipt or notification yields the same ids and the store's uniqueness
/// constraint makes it add nothing. The kind depends only on the transaction itself, never on
/// arrival order: Apple gives a chain's first transaction the chain's own id
/// (transaction_id == original_transaction_id), so that one is the PURCHASE and every other is
/// a RENEWAL, whichever arrives first.
public enum HistoryDerivation {
    /// The events `incoming` adds, given the stored version of the same transaction (`nil` when
    /// it is new) and when Apple last reversed a refund of it (`refundReversedAtMs`).
    ///
    /// A new transaction is a purchase or renewal at its purchase date; a cancellation date the
    /// stored copy does not carry is a refund at that date. A stored transaction arriving again
    /// unchanged adds nothing.
    ///
    /// A refund dated at or before a reversal is still history (it happened, then was undone),
    /// so it keeps the id "refund:<transaction_id>" whether it arrives before or after the
    /// reversal, and appears once either way. A refund dated after the latest reversal is a new
    /// one and gets "refund:<transaction_id>:<date>", so it is not mistaken for the reversed one.
    public static func events(
        incoming: Transaction, stored: Transaction?, source: HistoryEvent.Source,
        refundReversedAtMs: Int64? = nil
    ) -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        if stored == nil {
            let isFirstOfChain = incoming.transactionID == incoming.originalTransactionID
            let kind: HistoryEvent.Kind = isFirstOfChain ? .purchase : .renewal
            events.append(event(kind, at: incoming.purchaseDateMs, for: incoming, source: source))
        }
        if let cancelledAt = incoming.cancellationDateMs, cancelledAt != stored?.cancellationDateMs {
            var refund = event(.refund, at: cancelledAt, for: incoming, source: source)
            if let reversedAt = refundReversedAtMs, cancelledAt > reversedAt {
                refund.eventID += ":\(cancelledAt)"
            }
            events.append(refund)
        }
        return events
    }

    /// The event recorded in the previous owner's history when a chain moves to another user.
    ///
    /// Its id names both users and the instant, so ownership moving back and forth yields
    /// distinct events, while the same move is never recorded twice (it happens once).
    public static func ownershipTransfer(
        originalTransactionID: String, productID: String, toUserID: String, occurredAtMs: Int64,
        environment: Environment, source: HistoryEvent.Source
    ) -> HistoryEvent {
        HistoryEvent(
            eventID: "ownership_transfer:\(originalTransactionID):\(toUserID):\(occurredAtMs)",
            kind: .ownershipTransfer, occurredAtMs: occurredAtMs, productID: productID,
            transactionID: originalTransactionID, originalTransactionID: originalTransactionID,
            environment: environment, source: source)
    }

    private static func event(
        _ kind: HistoryEvent.Kind, at occurredAtMs: Int64, for transaction: Transaction,
        source: HistoryEvent.Source
    ) -> HistoryEvent {
        HistoryEvent(
            eventID: "\(kind.rawValue):\(transaction.transactionID)", kind: kind,
            occurredAtMs: occurredAtMs, productID: transaction.productID,
            transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            expiresAtMs: transaction.expiresDateMs ?? 0, environment: transaction.environment,
            source: source)
    }
}
