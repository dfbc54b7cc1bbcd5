/// Instants and spans as people read them in explanations: ISO 8601 UTC and "30 days".
///
/// The domain is stdlib-only, so the calendar is done here: days since 1970-01-01 to a
/// proleptic Gregorian date, with 400-year eras so any Int64 millisecond count works.
/// Public so every page that shows an instant (the console) writes it as explanations do.
public enum UTCText {
    /// `2026-04-01T00:00:00Z`, with `.123` only when the milliseconds are not zero (the form
    /// entitlementctl prints and accepts).
    public static func iso8601(milliseconds: Int64) -> String {
        let (days, dayMs) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = dayMs / 1000
        var text = "\(year)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):"
            + two(seconds % 60)
        if dayMs % 1000 != 0 { text += "." + String(String(dayMs % 1000 + 1000).dropFirst()) }
        return text + "Z"
    }

    /// The largest whole unit that divides the span exactly: "30 days", "1 hour", "90 seconds".
    static func duration(milliseconds: Int64) -> String {
        let units: [(Int64, String)] = [(86_400_000, "day"), (3_600_000, "hour"), (60_000, "minute"), (1000, "second")]
        for (size, name) in units where milliseconds != 0 && milliseconds % size == 0 {
            let count = milliseconds / size
            return "\(count) \(name)\(count == 1 ? "" : "s")"
        }
        return "\(milliseconds) ms"
    }

    /// Year, month (1...12) and day (1...31) of a day counted from 1970-01-01.
    public static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        // Count from 0000-03-01 so the leap day ends each year; an era is 146_097 days.
        let (era, dayOfEra) = floorDivision(daysSinceEpoch + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Days in `month` (1...12) of `year`, in the proleptic Gregorian calendar.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date: the inverse of ``civilDate(daysSinceEpoch:)``.
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
