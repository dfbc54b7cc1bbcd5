/// JSON string literals, written by hand where the service emits JSON itself (webhook bodies,
/// entitlementctl's --json output) so every writer escapes the same way.
public enum JSONString {
    /// `value` as a JSON string literal: quote, backslash and control characters escaped (with
    /// the short forms proto3 JSON printers use), everything else as UTF-8.
    public static func quoted(_ value: String) -> String {
        var out = ""
        append(value, to: &out)
        return out
    }

    /// Appends `value` as a JSON string literal to `out`, without an intermediate string.
    public static func append(_ value: String, to out: inout String) {
        out += "\""
        out.append(value, escaping: escape)
        out += "\""
    }

    /// How a string literal writes `scalar`, or nil where it stands as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\"": "\\\""
        case "\\": "\\\\"
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        case "\u{08}": "\\b"
        case "\u{0C}": "\\f"
        case _ where scalar.value < 0x20: unicodeEscape(scalar)
        default: nil
        }
    }

    /// `\u` and four hex digits, the form every other control character takes.
    static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
