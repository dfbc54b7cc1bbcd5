import Glibc

/// Milliseconds since the Unix epoch to and from ISO 8601 UTC, as people type and read them.
///
/// Glibc's `timegm`/`gmtime_r` do the calendar; this file only reads and writes the text, so
/// there is no date arithmetic of our own to get wrong.
enum Timestamps {
    /// `2026-04-01T00:00:00Z`, with `.123` only when the milliseconds are not zero.
    static func iso8601(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.floorDividing(by: 1000))
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(milliseconds)ms" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        if millis != 0 { text += "." + String(String(millis + 1000).dropFirst()) }
        return text + "Z"
    }

    /// Parses `--at`: Unix milliseconds (digits only), a date (`2026-04-01`, midnight UTC) or
    /// a date-time with seconds, optional fraction and a zone (`Z`, `+02:00`).
    static func milliseconds(parsing text: String) -> Int64? {
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return Int64(text) }
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(4), scanner.take("-"), let month = scanner.number(2), scanner.take("-"),
              let day = scanner.number(2) else { return nil }
        var hour = 0, minute = 0, second = 0, millis = 0, offsetMinutes = 0
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                  let h = scanner.number(2), scanner.take(":"), let m = scanner.number(2), scanner.take(":"),
                  let s = scanner.number(2) else { return nil }
            (hour, minute, second) = (h, m, s)
            if scanner.take(".") {
                var digits = 0
                while let digit = scanner.number(1) {
                    if digits < 3 { millis = millis * 10 + digit }
                    digits += 1
                }
                guard digits > 0 else { return nil }
                for _ in min(digits, 3)..<3 { millis *= 10 }
            }
            if !(scanner.take("Z") || scanner.take("z")) {
                guard let sign = scanner.sign(), let offsetHours = scanner.number(2), scanner.take(":"),
                      let offsetMins = scanner.number(2) else { return nil }
                offsetMinutes = sign * (offsetHours * 60 + offsetMins)
            }
            guard scanner.atEnd else { return nil }
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalizes February 30th into March; a date that moved was not a date.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return (Int64(seconds) - Int64(offsetMinutes) * 60) * 1000 + Int64(millis)
    }

    /// Reads fixed-width fields from ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }

        mutating func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + width)] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += width
            return value
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}

extension Int64 {
    /// Division rounding towards negative infinity, so instants before 1970 format correctly.
    func floorDividing(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
