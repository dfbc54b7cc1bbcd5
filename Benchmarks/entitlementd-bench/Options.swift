/// `--name value` pairs, nothing more: a benchmark's flags are few and all required or defaulted.
struct Options {
    fileprivate var values: [String: String] = [:]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard flag.hasPrefix("--"), let value = rest.popFirst() else {
                throw BenchError("expected --flag VALUE, got '\(flag)'")
            }
            values[String(flag.dropFirst(2))] = value
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw BenchError("--\(name) is required") }
        return value
    }

    /// Accepts underscores (`1_000_000`) so scripts can spell big counts readably; 0 only when
    /// `allowingZero` (a knob that 0 turns off).
    func int(_ name: String, default fallback: Int? = nil, allowingZero: Bool = false) throws -> Int {
        guard let raw = values[name] else {
            if let fallback { return fallback }
            throw BenchError("--\(name) is required")
        }
        guard let value = Int(raw.replacingOccurrences(of: "_", with: "")),
              value > 0 || (allowingZero && value == 0) else {
            throw BenchError("--\(name) must be a \(allowingZero ? "non-negative" : "positive") integer, got '\(raw)'")
        }
        return value
    }
}

extension Options {
    /// A positive integer when the flag is given, nil when it is not.
    func optionalInt(_ name: String) throws -> Int? {
        guard values[name] != nil else { return nil }
        return try int(name)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
