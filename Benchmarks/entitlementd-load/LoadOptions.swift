/// The load's flags: `--name value` pairs with defaults matching shared/bench's load.sh.
struct LoadOptions {
    var host = "127.0.0.1"
    var port: UInt16 = 0
    var connections = 4
    var streams = 32
    var durationSeconds = 10.0
    var warmupSeconds = 2.0
    var users = 1
    var distribution = UserPicker.Distribution.single(index: 0)
    var userPrefix = "u"
    var product = "pro.monthly"
    var seed: UInt64 = 1
    /// Only for the report: the server's facts-cache capacity, to print what share of the
    /// requests a perfect cache of that size would answer.
    var cacheCapacity = 100_000
    /// Only for the report: the server's process id, to print its CPU use during the window.
    var serverPID: Int32?
    /// Requests per second on a schedule, at most `streams` in flight per connection (0: closed loop).
    var ratePerSecond = 0.0
    /// Hold mode: this many mostly idle connections instead of the load (0 = the load).
    var hold = 0
    /// Hold mode: seconds between one connection's calls.
    var holdIntervalSeconds = 5.0

    init(_ arguments: [String]) throws {
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard flag.hasPrefix("--"), let value = rest.popFirst() else {
                throw LoadError("expected --flag VALUE, got '\(flag)'")
            }
            values[String(flag.dropFirst(2))] = value
        }
        guard let target = values.removeValue(forKey: "target"),
              let colon = target.lastIndex(of: ":"), let port = UInt16(target[target.index(after: colon)...])
        else { throw LoadError("--target HOST:PORT is required (an IPv4 address)") }
        host = String(target[..<colon])
        self.port = port
        func int(_ name: String, _ fallback: Int) throws -> Int {
            guard let raw = values.removeValue(forKey: name) else { return fallback }
            guard let value = Int(raw.replacingOccurrences(of: "_", with: "")), value >= 0 else {
                throw LoadError("--\(name) must be a non-negative integer, got '\(raw)'")
            }
            return value
        }
        func double(_ name: String, _ fallback: Double) throws -> Double {
            guard let raw = values.removeValue(forKey: name) else { return fallback }
            guard let value = Double(raw), value >= 0 else {
                throw LoadError("--\(name) must be a non-negative number, got '\(raw)'")
            }
            return value
        }
        connections = max(1, try int("connections", connections))
        streams = max(1, try int("streams", streams))
        durationSeconds = try double("duration", durationSeconds)
        warmupSeconds = try double("warmup", warmupSeconds)
        users = max(1, try int("users", users))
        seed = UInt64(try int("seed", Int(seed)))
        cacheCapacity = try int("cache-capacity", cacheCapacity)
        ratePerSecond = try double("rate", 0)
        hold = try int("hold", 0)
        holdIntervalSeconds = max(0.01, try double("hold-interval", holdIntervalSeconds))
        if values["server-pid"] != nil { serverPID = Int32(clamping: try int("server-pid", 0)) }
        userPrefix = values.removeValue(forKey: "user-prefix") ?? userPrefix
        product = values.removeValue(forKey: "product") ?? product
        let exponent = try double("zipf-exponent", 1.0)
        let userIndex = try int("user-index", 0)
        switch values.removeValue(forKey: "distribution") ?? "single" {
        case "single":
            guard userIndex < users else { throw LoadError("--user-index must be below --users") }
            distribution = .single(index: userIndex)
        case "uniform": distribution = .uniform
        case "zipf": distribution = .zipf(exponent: exponent)
        case let other: throw LoadError("--distribution is single, uniform or zipf, not '\(other)'")
        }
        if let unknown = values.keys.sorted().first { throw LoadError("unknown flag --\(unknown)") }
    }
}
