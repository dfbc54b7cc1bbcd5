import Entitlements

/// Every V2 notification the simulator produced, whether or not the webhook got it, as
/// `POST /inApps/v1/notifications/history` serves them: per environment, by when it was sent.
///
/// Sent means the real wall clock at which the simulator handed it to the webhook, not its
/// `signedDate`: that follows the simulated clock, which `advance` and `renew` move months
/// ahead, while a client asks for "what was sent between my watermark and now" in real time.
/// Append-only and already in send order, so a pagination token is simply the position where
/// the next page's scan resumes; it stays valid while later notifications are appended.
public struct NotificationHistory: Sendable {
    public struct Entry: Sendable, Hashable {
        public var notificationUUID: String
        public var environment: Environment
        /// Wall-clock Unix ms when it was sent (or would have been, without a webhook).
        public var sentAtMs: Int64
        /// The V2 JWS, the same bytes the webhook got (or would have got).
        public var signedPayload: String
    }

    public struct Page: Sendable {
        public var entries: [Entry]
        public var hasMore: Bool
        /// Present only when `hasMore`: pass it back as the `paginationToken` query parameter.
        public var paginationToken: String?
    }

    /// Apple keeps notification history for 180 days.
    public static let retentionMs: Int64 = 180 * SimulatedDuration.day

    private var entries: [Environment: [Entry]] = [:]

    public init() {}

    public mutating func append(_ entry: Entry) {
        entries[entry.environment, default: []].append(entry)
    }

    public func count(in environment: Environment) -> Int { entries[environment]?.count ?? 0 }

    /// The notifications of `environment` sent in `startMs..<endMs` that `include` keeps,
    /// from `paginationToken` on, at most `pageSize`; Apple's 400s for bad dates and tokens.
    public func page(
        environment: Environment, startMs: Int64, endMs: Int64, paginationToken: String?, pageSize: Int,
        nowMs: Int64, include: (Entry) -> Bool = { _ in true }
    ) throws(ServerAPIErrorAnswer) -> Page {
        guard startMs > 0 else { throw .invalidStartDate }
        guard endMs > 0 else { throw .invalidEndDate }
        guard endMs > startMs else { throw .startDateAfterEndDate }
        guard startMs >= nowMs - Self.retentionMs else { throw .startDateTooFarInPast }
        let all = entries[environment] ?? []
        var position = 0
        if let paginationToken {
            guard paginationToken.hasPrefix("p"), let parsed = Int(paginationToken.dropFirst()),
                  (0...all.count).contains(parsed)
            else { throw .invalidPaginationToken }
            position = parsed
        }
        func matches(_ entry: Entry) -> Bool {
            entry.sentAtMs >= startMs && entry.sentAtMs < endMs && include(entry)
        }
        var found: [Entry] = []
        while position < all.count, found.count < max(pageSize, 1) {
            if matches(all[position]) { found.append(all[position]) }
            position += 1
        }
        let hasMore = all[position...].contains(where: matches)
        return Page(entries: found, hasMore: hasMore, paginationToken: hasMore ? "p\(position)" : nil)
    }
}
