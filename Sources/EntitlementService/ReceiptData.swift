/// Receipt data as apps send it: standard base64, padded or not, often wrapped in lines.
enum ReceiptData {
    /// The receipt in canonical form (no line breaks, padded), or nil if it is not base64.
    ///
    /// Strict on purpose: Foundation's lenient decoder skips unknown characters, which would
    /// let garbage through to Apple and come back as a confusing 21002.
    static func normalized(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                continue
            case UInt8(ascii: "="):
                padding += 1
                guard padding <= 2 else { return nil }
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                guard padding == 0 else { return nil }
                out.append(byte)
            default:
                return nil
            }
        }
        guard !out.isEmpty, out.count % 4 != 1 else { return nil }
        let missing = (4 - out.count % 4) % 4
        guard padding == 0 || padding == missing else { return nil }
        out.append(contentsOf: repeatElement(UInt8(ascii: "="), count: missing))
        return String(decoding: out, as: UTF8.self)
    }
}
