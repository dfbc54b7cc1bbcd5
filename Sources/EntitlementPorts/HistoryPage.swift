import Entitlements

/// One page of a user's history, newest first.
public struct HistoryPage: Sendable, Hashable {
    public var events: [HistoryEvent]
    /// Pass back to get the next page; empty when there is none.
    public var nextPageToken: String

    public init(events: [HistoryEvent], nextPageToken: String) {
        self.events = events
        self.nextPageToken = nextPageToken
    }

    /// The page size used when the caller asks for 0 or less.
    public static let defaultPageSize = 50
    /// Larger requests are clamped to this, bounding the cost of one call.
    public static let maximumPageSize = 500

    /// The page for `events` read newest first with one row more than `limit`: that extra
    /// row only tells whether another page exists, so the last page carries no token.
    public init(newestFirst events: [HistoryEvent], limit: Int) {
        guard events.count > limit, limit > 0 else {
            self.init(events: events, nextPageToken: "")
            return
        }
        let page = Array(events.prefix(limit))
        let last = page[limit - 1]
        self.init(events: page,
                  nextPageToken: HistoryCursor(occurredAtMs: last.occurredAtMs, eventID: last.eventID).token)
    }

    /// The effective page size for a requested one.
    public static func clampedPageSize(_ requested: Int) -> Int {
        requested <= 0 ? defaultPageSize : min(requested, maximumPageSize)
    }
}
