import Entitlements

/// Values as the console writes them: the words `entitlementctl` prints, so a support person
/// reading a page and an engineer reading the CLI say the same thing.
enum ConsoleText {
    /// `ENTITLEMENT_STATE_GRACE_PERIOD` reads `grace_period`, as in the CLI's tables.
    static func name(_ value: some CustomStringConvertible, prefix: String) -> String {
        let text = value.description
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)).lowercased() : text
    }

    /// ISO 8601 UTC to the second (a person reading a table needs no milliseconds; the CLI's
    /// `--json` has them); 0 means "not applicable" throughout the API and reads `-`.
    static func time(_ milliseconds: Int64) -> String {
        guard milliseconds != 0 else { return "-" }
        let remainder = milliseconds % 1000
        return UTCText.iso8601(milliseconds: milliseconds - (remainder < 0 ? remainder + 1000 : remainder))
    }

    static func time(_ milliseconds: Int64?) -> String { milliseconds.map { time($0) } ?? "-" }

    static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    static func dash(_ text: String) -> String { text.isEmpty ? "-" : text }

    /// The customer page's address.
    static func customerPath(_ userID: String, historyPage: String? = nil) -> String {
        var path = "/console/customer?user=" + FormFields.encode(userID)
        if let historyPage, !historyPage.isEmpty { path += "&history=" + FormFields.encode(historyPage) }
        return path
    }
}
