import Foundation

/// The human-readable dates Apple writes next to every `*_ms` receipt field.
///
/// Readers use only the `_ms` fields (see ``Transaction/init(receiptInfo:environment:)``), but
/// a simulated response should look like Apple's so that clients which (wrongly) read the text
/// fields behave as they would in production: "2024-05-01 10:00:00 Etc/GMT" and the same
/// instant in "America/Los_Angeles".
enum AppleDateText {
    static func gmt(_ unixMs: Int64) -> String {
        render(unixMs, offsetSeconds: 0) + " Etc/GMT"
    }

    static func pacific(_ unixMs: Int64) -> String {
        let instant = Date(timeIntervalSince1970: Double(unixMs) / 1000)
        let offset = TimeZone(identifier: "America/Los_Angeles")?.secondsFromGMT(for: instant) ?? -28_800
        return render(unixMs, offsetSeconds: offset) + " America/Los_Angeles"
    }

    private static func render(_ unixMs: Int64, offsetSeconds: Int) -> String {
        var seconds = time_t(unixMs >= 0 ? unixMs / 1000 : (unixMs - 999) / 1000) + time_t(offsetSeconds)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
