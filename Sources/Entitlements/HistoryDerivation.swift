/// Derives history events from arriving transaction facts; pure and deterministic.
///
/// Event ids come from the source fact ("purchase:<transaction_id>", "refund:<transaction_id>"),
/// so a replayed receipt or notification yields the same ids and the store's uniqueness
/// constraint makes it add nothing. The kind depends on the transaction and on what Apple said
/// about it, never on arrival order: Apple gives a chain's first transaction the chain's own id
/// (transaction_id == original_transaction_id), so that one is the PURCHASE and every other is
/// a RENEWAL, whichever arrives first, except a transaction a purchase notification names
/// (SUBSCRIBED/RESUBSCRIBE: a new purchase in a lapsed chain), which is a PURCHASE whether the
/// notification arrives first (``events(incoming:stored:source:refundReversedAtMs:notification:)``)
/// or confirms it later (``confirmation(of:stored:by:)``).
public enum HistoryDerivation {
    /// The events `incoming` adds, given the stored version of the same transaction (`nil` when
    /// it is new) and when Apple last reversed a refund of it (`refundReversedAtMs`).
    ///
    /// A new transaction is a purchase or renewal at its purchase date; a cancellation date the
    /// stored copy does not carry is, at that date, a PRODUCT_CHANGE when the transaction was
    /// upgraded, a REVOKE when it was a Family Sharing revocation, and a REFUND otherwise (see
    /// ``cancellationKind(of:notification:)``). A stored transaction arriving again unchanged
    /// adds nothing.
    ///
    /// A refund dated at or before a reversal is still history (it happened, then was undone),
    /// so it keeps the id "refund:<transaction_id>" whether it arrives before or after the
    /// reversal, and appears once either way. A refund dated after the latest reversal is a new
    /// one and gets "refund:<transaction_id>:<date>", so it is not mistaken for the reversed one.
    /// A revocation's ids are the same with "revoke:"; an upgrade's is "product_change:<id>".
    ///
    /// Events a notification reported carry its ``NotificationReport/appleNotificationType``
    /// (every transaction it carried, as `source` says who reported them).
    public static func events(
        incoming: Transaction, stored: Transaction?, source: HistoryEvent.Source,
        refundReversedAtMs: Int64? = nil, notification: NotificationReport? = nil
    ) -> [HistoryEvent] {
        var events: [HistoryEvent] = []
        let type = notification?.appleNotificationType ?? ""
        if stored == nil {
            let isPurchase = incoming.transactionID == incoming.originalTransactionID
                || notification?.happening(to: incoming.transactionID) == .purchase
            events.append(event(isPurchase ? .purchase : .renewal, at: incoming.purchaseDateMs,
                                for: incoming, source: source, type: type))
        }
        if let cancelledAt = incoming.cancellationDateMs, cancelledAt != stored?.cancellationDateMs {
            let kind = cancellationKind(of: incoming, notification: notification)
            let id = kind == .productChange
                ? upgradeID(incoming.transactionID)
                : cancellationID(kind, incoming.transactionID, at: cancelledAt, reversedAtMs: refundReversedAtMs)
            events.append(event(kind, at: cancelledAt, for: incoming, source: source, type: type, id: id))
        }
        return events
    }

    /// The existing event a notification confirms when it names an already stored transaction
    /// as its subject; `nil` when it confirms nothing (not the subject, not a purchase, renewal,
    /// refund, revocation or upgrade, or a cancellation the transaction does not carry).
    ///
    /// A purchase notification names the transaction's purchase or renewal event (a receipt
    /// cannot tell a resubscription from a renewal) and makes it a PURCHASE; a renewal names
    /// its renewal event; a refund names the cancellation event at the transaction's
    /// cancellation date, and a revocation makes that event a REVOKE (a receipt without
    /// `FAMILY_SHARED` recorded it as a refund); a V1 CANCEL of an upgraded transaction names
    /// its PRODUCT_CHANGE. Confirming twice sets the same values, so a replay changes nothing.
    public static func confirmation(
        of incoming: Transaction, stored: Transaction?, by notification: NotificationReport?
    ) -> HistoryConfirmation? {
        guard stored != nil, let notification,
              let happening = notification.happening(to: incoming.transactionID) else { return nil }
        let id = incoming.transactionID
        let type = notification.appleNotificationType
        switch happening {
        case .purchase:
            return HistoryConfirmation(eventIDs: ["purchase:\(id)", "renewal:\(id)"], kind: .purchase,
                                       appleNotificationType: type)
        case .renewal:
            return HistoryConfirmation(eventIDs: ["renewal:\(id)"], appleNotificationType: type)
        case .refund, .revoke:
            guard let cancelledAt = incoming.cancellationDateMs, !incoming.isUpgraded else { return nil }
            // Any of the ids: the reversal that decides the suffix may have moved since, and a
            // revocation a receipt reported first may have been recorded as a refund.
            return HistoryConfirmation(
                eventIDs: [HistoryEvent.Kind.refund, .revoke].flatMap {
                    ["\($0.rawValue):\(id)", "\($0.rawValue):\(id):\(cancelledAt)"]
                },
                occurredAtMs: cancelledAt, kind: happening == .revoke ? .revoke : nil,
                appleNotificationType: type)
        case .upgraded:
            guard incoming.isUpgraded, incoming.cancellationDateMs != nil else { return nil }
            return upgradeConfirmation(of: incoming, type: type)
        case .upgrade:
            // The new plan's own period; the product change is the replaced plan's
            // (``upgrade(to:chain:source:notification:)``).
            return HistoryConfirmation(eventIDs: ["renewal:\(id)", "purchase:\(id)"], appleNotificationType: type)
        }
    }

    /// The id of a refund or revocation: "<kind>:<transaction_id>", or with ":<date>" after it
    /// when dated after the latest reversal of a refund.
    private static func cancellationID(
        _ kind: HistoryEvent.Kind, _ transactionID: String, at cancelledAt: Int64, reversedAtMs: Int64?
    ) -> String {
        if let reversedAt = reversedAtMs, cancelledAt > reversedAt {
            return "\(kind.rawValue):\(transactionID):\(cancelledAt)"
        }
        return "\(kind.rawValue):\(transactionID)"
    }

    /// The event recorded in the previous owner's history when a chain moves to another user.
    ///
    /// Its id names both users and the instant, so ownership moving back and forth yields
    /// distinct events, while the same move is never recorded twice (it happens once).
    public static func ownershipTransfer(
        originalTransactionID: String, productID: String, toUserID: String, occurredAtMs: Int64,
        environment: Environment, source: HistoryEvent.Source
    ) -> HistoryEvent {
        ownershipEvent(.ownershipTransfer, chain: originalTransactionID, productID: productID, otherUserID: toUserID,
                       at: occurredAtMs, environment: environment, source: source)
    }

    /// The event recorded in the owner's history when another user's claim of their chain is
    /// refused. Its id names the claimant and the instant, like a transfer's: every refused
    /// attempt is one event, so support sees how often someone tried.
    public static func claimRefused(
        originalTransactionID: String, productID: String, claimantUserID: String, occurredAtMs: Int64,
        environment: Environment, source: HistoryEvent.Source
    ) -> HistoryEvent {
        ownershipEvent(.claimRefused, chain: originalTransactionID, productID: productID, otherUserID: claimantUserID,
                       at: occurredAtMs, environment: environment, source: source)
    }

    /// `<kind>:<chain>:<other user>:<ms>`, the form ``HistoryEvent/counterpartUserID`` reads back.
    private static func ownershipEvent(
        _ kind: HistoryEvent.Kind, chain: String, productID: String, otherUserID: String, at occurredAtMs: Int64,
        environment: Environment, source: HistoryEvent.Source
    ) -> HistoryEvent {
        HistoryEvent(
            eventID: "\(kind.rawValue):\(chain):\(otherUserID):\(occurredAtMs)", kind: kind,
            occurredAtMs: occurredAtMs, productID: productID, transactionID: chain, originalTransactionID: chain,
            environment: environment, source: source)
    }

    static func event(
        _ kind: HistoryEvent.Kind, at occurredAtMs: Int64, for transaction: Transaction,
        source: HistoryEvent.Source, type: String, id: String? = nil
    ) -> HistoryEvent {
        HistoryEvent(
            eventID: id ?? "\(kind.rawValue):\(transaction.transactionID)", kind: kind,
            occurredAtMs: occurredAtMs, productID: transaction.productID,
            transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID,
            expiresAtMs: transaction.expiresDateMs ?? 0, environment: transaction.environment,
            source: source, appleNotificationType: type)
    }
}
