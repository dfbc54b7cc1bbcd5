import HTTPServer
import ServiceRuntime

extension DaemonFlags {
    /// The HOST:PORT in flag `name` (`[v6]:port` allowed; an empty host means every interface).
    static func address(
        _ flags: ParsedFlags, _ name: String, example: String
    ) throws(FlagError) -> (host: String, port: Int) {
        let text = flags.string(name)!
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else {
            throw FlagError("--\(name) must be HOST:PORT (e.g. \(example)), got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        return (host, port)
    }

    /// The admin listener's transport settings, or nil without --admin-listen.
    ///
    /// One loop thread and few connections: a Prometheus scraper and an operator, not traffic.
    /// The request limits and timeouts are the service port's.
    static func adminConfiguration(
        _ flags: ParsedFlags, service: ServerConfiguration
    ) throws(FlagError) -> ServerConfiguration? {
        guard flags.string("admin-listen") != nil else { return nil }
        let (host, port) = try address(flags, "admin-listen", example: "127.0.0.1:9090")
        var configuration = service
        configuration.host = host
        configuration.port = port
        configuration.threads = 1
        configuration.maxConnections = 64
        return configuration
    }
}
