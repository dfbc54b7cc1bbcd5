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
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
