import Foundation
import Synchronization

/// Counters, histograms and gauges rendered in the Prometheus text format for `GET /metrics`.
///
/// Callers on hot paths register a series once and keep its handle (``Counter``,
/// ``Histogram``): an update is then one atomic add or one short lock, with no label rendering
/// or dictionary lookup. Gauges are read at scrape time from closures, so they never go stale.
public final class MetricsRegistry: Sendable {
    private enum Series: Sendable {
        case counter(Counter)
        case histogram(Histogram)
    }

    private struct Family: Sendable {
        var help: String
        var type: String
        var series: [String: Series] = [:]
    }

    private let families = Mutex<[String: Family]>([:])
    private let gauges = Mutex<[(name: String, help: String, read: @Sendable () -> Double)]>([])

    public init() {}

    /// The counter `name{labels}`, created on first use; keep the handle on hot paths.
    public func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Counter {
        let key = MetricsRegistry.render(labels)
        return families.withLock { families in
            if case .counter(let existing)? = families[name]?.series[key] { return existing }
            let created = Counter()
            families[name, default: Family(help: help, type: "counter")].series[key] = .counter(created)
            return created
        }
    }

    /// The histogram `name{labels}` with upper bounds `buckets` (base units, e.g. seconds).
    public func histogram(_ name: String, help: String, labels: [(String, String)] = [],
                          buckets: [Double] = Histogram.latencyBuckets) -> Histogram {
        let key = MetricsRegistry.render(labels)
        return families.withLock { families in
            if case .histogram(let existing)? = families[name]?.series[key] { return existing }
            let created = Histogram(buckets: buckets)
            families[name, default: Family(help: help, type: "histogram")].series[key] = .histogram(created)
            return created
        }
    }

    /// Convenience for cold paths: finds the counter and adds `value`.
    public func increment(_ name: String, help: String, labels: [(String, String)] = [], by value: Int = 1) {
        counter(name, help: help, labels: labels).increment(by: value)
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
            for key in family.series.keys.sorted() {
                switch family.series[key]! {
                case .counter(let counter):
                    out += "\(name)\(key) \(counter.value)\n"
                case .histogram(let histogram):
                    histogram.render(name: name, labels: key, into: &out)
                }
            }
        }
        for gauge in gauges.withLock({ $0 }) {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n"
            out += "\(gauge.name) \(MetricsRegistry.format(gauge.read()))\n"
        }
        return out
    }

    /// `{k="v",...}`, escaping only when needed.
    static func render(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        var out = "{"
        for (index, (key, value)) in labels.enumerated() {
            if index > 0 { out += "," }
            out += key + "=\"" + escape(value) + "\""
        }
        return out + "}"
    }

    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 }) else {
            return value
        }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A monotonically increasing count; one atomic add per update.
public final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    public func increment(by value: Int = 1) { count.wrappingAdd(value, ordering: .relaxed) }
    public var value: Int { count.load(ordering: .relaxed) }
}

/// Observations bucketed by upper bound, with their sum and count (Prometheus histogram).
public final class Histogram: Sendable {
    /// 100 µs to 10 s: covers a read from memory up to a slow call to Apple.
    public static let latencyBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                  0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    let bounds: [Double]
    private let state: Mutex<(counts: [Int], sum: Double)>

    init(buckets: [Double]) {
        bounds = buckets.sorted()
        state = Mutex((counts: Array(repeating: 0, count: buckets.count + 1), sum: 0))
    }

    public func observe(_ value: Double) {
        var index = bounds.count
        for (i, bound) in bounds.enumerated() where value <= bound {
            index = i
            break
        }
        state.withLock {
            $0.counts[index] += 1
            $0.sum += value
        }
    }

    func render(name: String, labels: String, into out: inout String) {
        let (counts, sum) = state.withLock { ($0.counts, $0.sum) }
        let inner = labels.isEmpty ? "" : String(labels.dropFirst().dropLast()) + ","
        var cumulative = 0
        for (i, count) in counts.enumerated() {
            cumulative += count
            let bound = i < bounds.count ? MetricsRegistry.format(bounds[i]) : "+Inf"
            out += "\(name)_bucket{\(inner)le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "\(name)_sum\(labels) \(sum)\n\(name)_count\(labels) \(cumulative)\n"
    }
}

/// This process's resident set size in bytes, from /proc/self/statm.
public func residentMemoryBytes() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
}
