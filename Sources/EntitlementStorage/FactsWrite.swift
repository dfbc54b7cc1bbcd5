import Entitlements

/// Facts about one user that arrived together (one receipt, one notification), written atomically.
public struct FactsWrite: Sendable {
    public var userID: String
    public var transactions: [Transaction]
    public var renewalInfos: [RenewalInfo]
    public var source: HistoryEvent.Source
    /// The receipt hash or notification id, recorded as processed; `nil` records nothing.
    public var sourceID: String?
    /// Events the caller derived itself (notification-driven kinds), stored for ``userID``.
    public var events: [HistoryEvent]

    public init(
        userID: String, transactions: [Transaction] = [], renewalInfos: [RenewalInfo] = [],
        source: HistoryEvent.Source, sourceID: String? = nil, events: [HistoryEvent] = []
    ) {
        self.userID = userID
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.source = source
        self.sourceID = sourceID
        self.events = events
    }
}
