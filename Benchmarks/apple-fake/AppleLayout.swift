/// A JSON sample re-laid out the way Apple's verifyReceipt sends its answers.
///
/// Why: the samples are pretty-printed for people (two-space indents, a member per line), but
/// Apple's answer is compact: no indentation, `", "` between members, a line break only before
/// each object of an array (`[\n{...},\n{...}]`), `"key":value` without a space (as answers
/// quoted in bug reports and client tests show). Served pretty, the 7-transaction sample is
/// 9.9 KB instead of ~8.1 KB, and the server under test skipped ~1,900 indenting blanks per
/// answer that Apple never sends. Only the layout changes: every key, value and order stays.
enum AppleLayout {
    /// `json` with its whitespace outside strings replaced by Apple's separators.
    static func asSent(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "{"):
                // An object that is an array element starts a line: after `[` or after `,` (the
                // space written after every comma becomes the line break).
                if out.last == UInt8(ascii: "[") {
                    out.append(UInt8(ascii: "\n"))
                } else if out.count >= 2, out[out.count - 2] == UInt8(ascii: ","), out.last == UInt8(ascii: " ") {
                    out[out.count - 1] = UInt8(ascii: "\n")
                }
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            default:
                out.append(byte)
            }
        }
        return out
    }
}
