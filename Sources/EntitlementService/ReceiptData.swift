/// Receipt data as apps send it: standard base64, padded or not, often wrapped in lines.
enum ReceiptData {
    /// The receipt in canonical form (no line breaks, padded), or nil if it is not base64.
    ///
    /// Strict on purpose: Foundation's lenient decoder skips unknown characters, which would
    /// let garbage through to Apple and come back as a confusing 21002.
    static func normalized(_ text: String) -> String? {
        // Most apps send the canonical form already: one pass over the bytes, no copy (the
        // rebuilding path costs a byte-wise append per character, ~3 % of SubmitReceipt's CPU).
        if text.utf8.withContiguousStorageIfAvailable(isCanonical) == true { return text }
        return rebuilt(text)
    }

    /// True when `bytes` is what ``rebuilt(_:)`` would return for them unchanged: base64
    /// characters only, the length a multiple of 4, at most two "=" and only at the end.
    ///
    /// Receipts run to hundreds of KB, so the body is checked eight bytes at a time (a `switch`
    /// per byte was a third of SubmitReceipt's CPU on a 300 KB receipt); the last few bytes by
    /// a table.
    static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count % 4 == 0, let base = bytes.baseAddress else { return false }
        var end = bytes.count
        // At most two trailing "="; one further back is caught below (not in the alphabet).
        if bytes[end - 1] == UInt8(ascii: "=") {
            end -= 1
            if bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= end {
            guard Self.allInAlphabet(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) else { return false }
            index += 8
        }
        while index < end {
            guard outsideAlphabet[Int(bytes[index])] == 0 else { return false }
            index += 1
        }
        return true
    }

    /// Whether all eight bytes of `word` are base64 characters: A-Z, a-z, "/" to "9" (the
    /// slash and the digits are neighbours in ASCII) or "+".
    ///
    /// For a byte b < 0x80, b + (0x80 - lo) has its high bit set exactly when b >= lo, and
    /// (0x80 + hi) - b exactly when b <= hi; neither carries into the next byte, so one 64-bit
    /// add or subtract tests eight bytes. A byte >= 0x80 is refused first (it could carry).
    private static func allInAlphabet(_ word: UInt64) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return false }
        func within(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            return (word &+ ones &* (0x80 - lo)) & (ones &* (0x80 + hi) &- word)
        }
        let inside = within(0x41, 0x5A) | within(0x61, 0x7A) | within(0x2F, 0x39) | within(0x2B, 0x2B)
        return inside & high == high
    }

    /// 1 for every byte that is not one of base64's 64 characters ("=" included), else 0.
    private static let outsideAlphabet: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return 0
        default:
            return 1
        }
    }

    /// The general path: drops line breaks, checks the characters and the padding, pads.
    static func rebuilt(_ text: String) -> String? {
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
