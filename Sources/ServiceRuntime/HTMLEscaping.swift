/// The one escaping function between typed values and markup: every string the console and its
/// dashboard write into HTML or SVG, text or attribute, goes through it.
public enum HTMLEscaping {
    /// `text` safe inside an element or a double- or single-quoted attribute.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        escaped.append(text) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: nil
            }
        }
        return escaped
    }
}
