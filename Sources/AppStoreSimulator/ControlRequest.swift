import Foundation

/// One control API request body: a JSON object with typed, error-naming readers.
struct ControlRequest {
    let fields: [String: Any]

    init(_ body: [UInt8]) throws(SimulatorError) {
        if body.isEmpty {
            fields = [:]
            return
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw SimulatorError(.invalidArgument, "the body must be a JSON object")
        }
        fields = object
    }

    func string(_ key: String) throws(SimulatorError) -> String? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        if let text = value as? String { return text }
        if let number = value as? NSNumber, type(of: number) != type(of: NSNumber(value: true)) {
            return number.stringValue
        }
        throw SimulatorError(.invalidArgument, "\(key) must be a string")
    }

    func requiredString(_ key: String) throws(SimulatorError) -> String {
        guard let text = try string(key), !text.isEmpty else {
            throw SimulatorError(.invalidArgument, "\(key) is required")
        }
        return text
    }

    func bool(_ key: String) throws(SimulatorError) -> Bool? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        if let flag = value as? Bool { return flag }
        switch (value as? String)?.lowercased() {
        case "true", "on", "1": return true
        case "false", "off", "0": return false
        default: throw SimulatorError(.invalidArgument, "\(key) must be true or false")
        }
    }

    /// A duration given as `key_ms` (exact milliseconds) or `key` text ("30d"), the text
    /// multiplied by `scale` (the `--period-scale` that shrinks named periods for demos).
    func durationMs(_ key: String, scale: Double = 1) throws(SimulatorError) -> Int64? {
        if let exact = fields[key + "_ms"] as? NSNumber { return exact.int64Value }
        if let text = try string(key + "_ms") {
            guard let exact = Int64(text) else {
                throw SimulatorError(.invalidArgument, "\(key)_ms must be an integer")
            }
            return exact
        }
        guard let text = try string(key) else { return nil }
        guard let milliseconds = SimulatedDuration.milliseconds(text) else {
            throw SimulatorError(
                .invalidArgument, "\(key) must be a duration such as 500ms, 90s, 5m, 2h, 30d or 1y, got '\(text)'")
        }
        return Int64((Double(milliseconds) * scale).rounded())
    }
}
