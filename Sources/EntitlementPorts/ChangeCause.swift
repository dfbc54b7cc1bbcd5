import Entitlements

/// Which history event a fact-caused change names as its `cause_event_id`: part of the
/// contract, so every backend names the same one.
///
/// The event must be one the consumer can look up (ListHistory of the change's user) and the
/// one behind the change, in that order of preference:
/// 1. the newest event the write added to this user's history for this chain (a purchase, a
///    renewal after a lapse, a refund, a billing-retry or grace event, waiting events a
///    receipt's binding adopted);
/// 2. else the newest event the write added anywhere for this chain (the ownership-transfer
///    event in the previous owner's history, for the user who gained the chain);
/// 3. else the newest event already in this user's history for this chain (a fact that
///    records no event of its own, such as a refund reversal or renewal info alone);
/// 4. else "" (nothing recorded about the chain at all).
/// "Newest" is by (occurred_at_ms, event_id), the order history pages use.
public enum ChangeCause {
    public static func eventID<Owner: Equatable>(
        owner: Owner, chainID: String, addedByWrite: [(owner: Owner, event: HistoryEvent)],
        newestInHistory: () throws -> String?
    ) rethrows -> String {
        var own: HistoryEvent?
        var anyone: HistoryEvent?
        for (eventOwner, event) in addedByWrite where event.originalTransactionID == chainID {
            if eventOwner == owner, own.map({ isNewer(event, than: $0) }) ?? true { own = event }
            if anyone.map({ isNewer(event, than: $0) }) ?? true { anyone = event }
        }
        if let event = own ?? anyone { return event.eventID }
        return try newestInHistory() ?? ""
    }

    static func isNewer(_ event: HistoryEvent, than other: HistoryEvent) -> Bool {
        if event.occurredAtMs != other.occurredAtMs { return event.occurredAtMs > other.occurredAtMs }
        return other.eventID.utf8.lexicographicallyPrecedes(event.eventID.utf8)
    }
}
