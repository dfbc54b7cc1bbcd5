import Foundation
import Synchronization

/// Counters and gauges rendered in the Prometheus text format for `GET /metrics`.
///
/// Deliberately small: label sets are pre-rendered strings so an increment is one lock and one
/// dictionary update. Gauges are read at scrape time from closures, so they never go stale.
public final class MetricsRegistry: Sendable {
    private struct Family: Sendable {
        var help: String
        var type: String
        var samples: [String: Double] = [:]
    }

    private let families = Mutex<[String: Family]>([:])
    private let gauges = Mutex<[(name: String, help: String, read: @Sendable () -> Double)]>([])

    public init() {}

    /// Adds `value` to the counter `name` with `labels` (e.g. `[("method", "/x"), ("code", "OK")]`).
    public func increment(_ name: String, help: String, labels: [(String, String)] = [], by value: Double = 1) {
        let key = MetricsRegistry.render(labels)
        families.withLock { families in
            families[name, default: Family(help: help, type: "counter")].samples[key, default: 0] += value
        }
    }

    public func registerGauge(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        gauges.withLock { $0.append((name, help, read)) }
    }

    public func render() -> String {
        var out = ""
        let snapshot = families.withLock { $0 }
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for key in family.samples.keys.sorted() {
                out += "\(name)\(key) \(MetricsRegistry.format(family.samples[key]!))\n"
            }
        }
        for gauge in gauges.withLock({ $0 }) {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n"
            out += "\(gauge.name) \(MetricsRegistry.format(gauge.read()))\n"
        }
        return out
    }

    /// `{k="v",...}`. Called on every RPC, so it avoids Foundation and escapes only when needed.
    static func render(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        var out = "{"
        for (index, (key, value)) in labels.enumerated() {
            if index > 0 { out += "," }
            out += key
            out += "=\""
            if value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 }) {
                for character in value {
                    switch character {
                    case "\\": out += "\\\\"
                    case "\"": out += "\\\""
                    case "\n": out += "\\n"
                    default: out.append(character)
                    }
                }
            } else {
                out += value
            }
            out += "\""
        }
        return out + "}"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// This process's resident set size in bytes, from /proc/self/statm.
public func residentMemoryBytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}
