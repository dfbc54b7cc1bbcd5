/// Durations as the simulator's users write them: `500ms`, `90s`, `5m`, `2h`, `30d`, `1y`.
///
/// Days and years are what subscription periods are made of (Apple's "1 month" is simulated as
/// 30 days, "1 year" as 365), so unlike the service's flags this parser knows them.
public enum SimulatedDuration {
    public static let day: Int64 = 86_400_000

    /// Milliseconds, or nil for text that is not a non-negative whole number with a unit.
    public static func milliseconds(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [
            ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", day), ("w", 7 * day), ("y", 365 * day),
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            let number = text.dropLast(suffix.count)
            // "5ms" also ends in "s"; the longer suffix is tried first, so skip the shorter.
            if suffix == "s", number.hasSuffix("m") { continue }
            guard let value = Int64(number), value >= 0 else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: scale)
            return overflow ? nil : product
        }
        return nil
    }
}
