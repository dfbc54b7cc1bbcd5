/// Where a client connects: `HOST:PORT`, `[IPV6]:PORT`.
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// Parses `HOST:PORT`; nil when the port is missing or out of range. Brackets around an
    /// IPv6 literal are removed, as getaddrinfo wants the bare address.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"),
              let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = Substring(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            return nil
        }
        guard !host.isEmpty else { return nil }
        self.host = String(host)
        self.port = port
    }

    /// The `:authority` form: IPv6 literals go back in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
