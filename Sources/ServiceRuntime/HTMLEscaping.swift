/// The one escaping function between typed values and markup: every string the console and its
/// dashboard write into HTML or SVG, text or attribute, goes through it.
public enum HTMLEscaping {
    /// `text` safe inside an element or a double- or single-quoted attribute.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
