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
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
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
        return (daysSinceEpoch(year: year, month: month, day: day) * 86_400 + seconds) * 1000
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (the inverse of UTCText.civilDate).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
