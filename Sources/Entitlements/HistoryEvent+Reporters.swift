extension HistoryEvent {
    /// Who reported each transaction first, keyed by transaction id, read from a user's history.
    ///
    /// Every stored transaction got a PURCHASE or RENEWAL event ("purchase:<id>" or
    /// "renewal:<id>") from whoever reported it first; a later confirmation by a notification
    /// keeps that source, so the event's source is the first reporter. A transaction without
    /// such an event in `events` (history recorded under a previous owner before an ownership
    /// transfer) is simply absent.
    public static func firstReporters(in events: [HistoryEvent]) -> [String: Source] {
        var reporters: [String: Source] = [:]
        for event in events where event.kind == .purchase || event.kind == .renewal {
            guard event.eventID == "purchase:\(event.transactionID)"
                    || event.eventID == "renewal:\(event.transactionID)" else { continue }
            reporters[event.transactionID] = reporters[event.transactionID] ?? event.source
        }
        return reporters
    }
}
