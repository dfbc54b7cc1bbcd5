internal import CPostgreSQL

/// Where and how to connect: a `postgres://` or `postgresql://` URL (or a `key=value`
/// conninfo string), parsed by libpq itself so every libpq setting means what libpq says.
///
/// A password may come from the URL, from `PGPASSWORD` or from a `.pgpass` file: the last two
/// are read by libpq at connect time, so a URL without one is valid. The password never
/// leaves this value except towards libpq: ``description`` and ``redacted`` show `***` in its
/// place, so a URL can be interpolated into logs and error messages safely.
public struct ConnectionURL: Sendable, Equatable, CustomStringConvertible {
    /// One libpq setting, in libpq's keyword order.
    public struct Setting: Sendable, Equatable {
        public var keyword: String
        public var value: String
        /// libpq marks passwords as "hide this value" (dispchar `*`).
        public var isSecret: Bool
    }

    /// The settings given explicitly; libpq's defaults and environment fill the rest.
    public private(set) var settings: [Setting]

    /// Parses `text`; throws when libpq cannot read it, with a message that omits the password.
    public init(_ text: String) throws(PostgreSQLError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "out of memory"
            PQfreemem(errorMessage)
            throw PostgreSQLError(
                kind: .invalidArgument, sqlState: nil,
                message: "cannot read the database URL: \(Self.withoutPassword(message.trimmed, of: text)); "
                    + "write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE (percent-encode special characters)")
        }
        defer { PQconninfoFree(options) }
        var settings: [Setting] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let display = option.pointee.dispchar.map { String(cString: $0) } ?? ""
                settings.append(Setting(keyword: String(cString: keyword), value: String(cString: value),
                                        isSecret: display == "*"))
            }
            option += 1
        }
        self.settings = settings
    }

    /// Whether `text` names a PostgreSQL database (as opposed to, say, a SQLite file path).
    public static func isPostgreSQL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The value of `keyword` given explicitly (`nil` when libpq's default applies).
    public subscript(keyword: String) -> String? {
        settings.last { $0.keyword == keyword }?.value
    }

    /// A copy with `keyword` set to `value` (e.g. another `dbname`, or keepalive settings),
    /// replacing what the URL said.
    public func setting(_ keyword: String, to value: String) -> ConnectionURL {
        var copy = self
        copy.settings.removeAll { $0.keyword == keyword }
        copy.settings.append(Setting(keyword: keyword, value: value,
                                     isSecret: keyword == "password" || keyword == "sslpassword"))
        return copy
    }

    /// A copy without `keyword`, so libpq's default or environment applies (e.g. the password
    /// from PGPASSWORD or ~/.pgpass).
    public func removing(_ keyword: String) -> ConnectionURL {
        var copy = self
        copy.settings.removeAll { $0.keyword == keyword }
        return copy
    }

    /// A copy whose connections notice a dead peer in about ten seconds rather than the
    /// system's two hours: TCP keepalives and a user timeout on both ends (client side through
    /// libpq's settings; server side through session settings in `options`, so the server also
    /// ends the session of a client that vanished), and a 5 s connect timeout so a retry against
    /// an unreachable host fails rather than hangs. For long-lived connections that are often
    /// idle: a lease, a LISTEN.
    public func detectingDeadPeers() -> ConnectionURL {
        let serverSide = "-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3"
            + " -c tcp_user_timeout=10000"
        let options = [self["options"], serverSide].compactMap { $0 }.joined(separator: " ")
        return setting("keepalives", to: "1").setting("keepalives_idle", to: "5")
            .setting("keepalives_interval", to: "2").setting("keepalives_count", to: "3")
            .setting("tcp_user_timeout", to: "10000").setting("connect_timeout", to: "5")
            .setting("options", to: options)
    }

    /// The URL for logs: user, host, port, database and other settings, with `***` for a password.
    public var redacted: String {
        var text = "postgresql://"
        if let user = self["user"] { text += percentEncoded(user) }
        if self["password"] != nil { text += ":***" }
        if self["user"] != nil || self["password"] != nil { text += "@" }
        var query: [String] = []
        let host = self["host"] ?? self["hostaddr"]
        if let host, !host.contains("/"), !host.contains(",") {
            text += host.contains(":") ? "[\(host)]" : host
            if let port = self["port"], !port.contains(",") { text += ":" + port }
        }
        text += "/" + percentEncoded(self["dbname"] ?? "")
        for setting in settings where !Self.inAuthority(setting.keyword, host: host) {
            if setting.keyword == "password" { continue }
            query.append(setting.keyword + "=" + (setting.isSecret ? "***" : percentEncoded(setting.value)))
        }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    public var description: String { redacted }

    /// Settings the authority part of ``redacted`` already shows.
    private static func inAuthority(_ keyword: String, host: String?) -> Bool {
        switch keyword {
        case "user", "dbname": return true
        case "host", "hostaddr", "port":
            guard let host else { return false }
            return !host.contains("/") && !host.contains(",")
        default: return false
        }
    }

    /// libpq quotes the offending text in some messages (a bad percent-encoding quotes the whole
    /// password); anything that could be the URL's password is cut out.
    static func withoutPassword(_ message: String, of text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return message }
        let afterScheme = text[scheme.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@") else { return message }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return message }
        let password = String(userInfo[userInfo.index(after: colon)...])
        guard !password.isEmpty else { return message }
        var cleaned = message.replacing(password, with: "***")
        // libpq may quote a decoded or partial form: drop every quoted fragment to be sure.
        while let open = cleaned.firstIndex(of: "\""),
              let close = cleaned[cleaned.index(after: open)...].firstIndex(of: "\"") {
            cleaned.replaceSubrange(open...close, with: "(redacted)")
        }
        return cleaned
    }
}

private func percentEncoded(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            encoded.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".unicodeScalars)
            encoded += "%"
            encoded.unicodeScalars.append(hex[Int(byte >> 4)])
            encoded.unicodeScalars.append(hex[Int(byte & 0xf)])
        }
    }
    return encoded
}

extension String {
    var trimmed: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
