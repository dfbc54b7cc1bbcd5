/// One calendar day in UTC, counted from 1970-01-01: the unit of the daily rollup.
///
/// A number rather than a date string so days sort, subtract and key tables cheaply; the
/// text form (``text``) is what people and CSV files read.
public struct UTCDay: Sendable, Hashable, Comparable, Strideable {
    public static let milliseconds: Int64 = 86_400_000

    /// Days since 1970-01-01 (negative before it).
    public var daysSince1970: Int64

    public init(daysSince1970: Int64) {
        self.daysSince1970 = daysSince1970
    }

    /// The day holding the instant `milliseconds` (Unix ms), rounding down before 1970 too.
    public init(containing milliseconds: Int64) {
        let quotient = milliseconds / Self.milliseconds
        daysSince1970 = milliseconds % Self.milliseconds < 0 ? quotient - 1 : quotient
    }

    /// The first millisecond of the day.
    public var startMs: Int64 { daysSince1970 * Self.milliseconds }

    /// `2026-12-07`.
    public var text: String {
        let (year, month, day) = UTCText.civilDate(daysSinceEpoch: daysSince1970)
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    public static func < (lhs: UTCDay, rhs: UTCDay) -> Bool { lhs.daysSince1970 < rhs.daysSince1970 }

    public func distance(to other: UTCDay) -> Int64 { other.daysSince1970 - daysSince1970 }

    public func advanced(by days: Int64) -> UTCDay { UTCDay(daysSince1970: daysSince1970 + days) }
}
