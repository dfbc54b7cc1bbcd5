import Entitlements

/// What the grant form's "Expires" field accepts: a span from now or a UTC instant.
///
/// A span is what support staff think in ("a week's access": `7d`); an instant is what a
/// promise to a customer names ("until the end of January": `2027-02-01`). Times are UTC
/// always, as every instant the console shows: a browser's time zone never changes a grant.
enum ExpiryInput {
    /// Unix milliseconds, or nil when `text` is neither form. Range checks (after the start,
    /// at most ten years) are the grant handler's, so the console and the RPC refuse alike.
    static func milliseconds(_ text: String, now: Int64) -> Int64? {
        let text = String(text.trimmingWhitespace)
        if let span = spanMilliseconds(text) { return now + span }
        return instantMilliseconds(text)
    }

    /// `30d`, `12h`, `90m`, `2w`: a whole number and a unit.
    static func spanMilliseconds(_ text: String) -> Int64? {
        guard let unit = text.last, let count = Int64(text.dropLast()), count > 0, count <= 100_000 else { return nil }
        switch unit {
        case "m": return count * 60_000
        case "h": return count * 3_600_000
        case "d": return count * 86_400_000
        case "w": return count * 7 * 86_400_000
        default: return nil
        }
    }

    /// `2027-01-31` (its first instant), `2027-01-31T12:00`, `2027-01-31T12:00:30`, each with an
    /// optional trailing `Z`.
    static func instantMilliseconds(_ text: String) -> Int64? {
        var text = Substring(text)
        if text.hasSuffix("Z") || text.hasSuffix("z") { text = text.dropLast() }
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
              let year = Int64(date[0]), let month = Int64(date[1]), let day = Int64(date[2]),
              (1...12).contains(month), (1...UTCText.daysIn(month: month, year: year)).contains(day) else { return nil }
        var seconds: Int64 = 0
        if parts.count == 2 {
            let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(clock.count), clock.allSatisfy({ $0.count == 2 }),
                  let hour = Int64(clock[0]), let minute = Int64(clock[1]),
                  (0...23).contains(hour), (0...59).contains(minute) else { return nil }
            let second = clock.count == 3 ? Int64(clock[2]) : 0
            guard let second, (0...59).contains(second) else { return nil }
            seconds = hour * 3600 + minute * 60 + second
        }
        return (UTCText.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + seconds) * 1000
    }
}
