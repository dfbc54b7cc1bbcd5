/// Strict decoders for the two base64 alphabets a JWS uses.
///
/// Strict because a verifier should accept exactly one spelling of each token: the compact
/// parts are base64url without padding (RFC 7515 section 2), the `x5c` entries are standard
/// base64 with padding (RFC 7515 section 4.1.6). Anything else (whitespace, the other alphabet,
/// padding where none belongs, non-zero leftover bits) is rejected, never skipped.
/// Table-driven over contiguous bytes: every token decodes about 9 KB, so this is on the
/// per-token path next to the signature check.
enum Base64 {
    /// Decodes unpadded base64url; nil for any character outside `A-Z a-z 0-9 - _`.
    static func decodeURL(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        text.withUnsafeBufferPointer { decode($0, table: urlTable) }
    }

    /// Decodes padded standard base64 (`+ /`, `=` to a multiple of four characters).
    static func decodeStandard(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count % 4 == 0 else { return nil }
            var body = bytes.count
            while body > 0, bytes.count - body < 2, bytes[body - 1] == UInt8(ascii: "=") { body -= 1 }
            // Padding must be exactly what the unpadded length implies: "xx==" or "xxx=".
            guard bytes.count - body == (4 - body % 4) % 4 else { return nil }
            return decode(UnsafeBufferPointer(rebasing: bytes[..<body]), table: standardTable)
        }
    }

    private static let invalid: UInt8 = 0xff
    private static let urlTable = table(UInt8(ascii: "-"), UInt8(ascii: "_"))
    private static let standardTable = table(UInt8(ascii: "+"), UInt8(ascii: "/"))

    /// Maps each byte to its 6-bit value, or ``invalid``.
    private static func table(_ char62: UInt8, _ char63: UInt8) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        for (value, char) in letters.enumerated() { table[Int(char)] = UInt8(value) }
        table[Int(char62)] = 62
        table[Int(char63)] = 63
        return table
    }

    /// Decodes unpadded text; a final group of one character cannot encode a byte.
    ///
    /// Four characters (three bytes) per step: the outer V2 payload alone is ~13 KB of text.
    private static func decode(_ text: UnsafeBufferPointer<UInt8>, table: [UInt8]) -> [UInt8]? {
        let remainder = text.count % 4
        guard remainder != 1 else { return nil }
        let groups = text.count / 4
        let capacity = groups * 3 + max(remainder - 1, 0)
        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
                var seen: UInt8 = 0
                var written = 0
                func value(_ index: Int) -> UInt32 {
                    let value = table[Int(text[index])]
                    seen |= value
                    return UInt32(value & 0x3f)
                }
                for group in 0..<groups {
                    let at = group * 4
                    let bits = value(at) << 18 | value(at + 1) << 12 | value(at + 2) << 6 | value(at + 3)
                    out[written] = UInt8(truncatingIfNeeded: bits >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: bits)
                    written += 3
                }
                // Leftover bits must be zero, or two different texts would decode to the same bytes.
                var leftover: UInt32 = 0
                let at = groups * 4
                if remainder == 2 {
                    let bits = value(at) << 6 | value(at + 1)
                    out[written] = UInt8(truncatingIfNeeded: bits >> 4)
                    written += 1
                    leftover = bits & 0xf
                } else if remainder == 3 {
                    let bits = value(at) << 12 | value(at + 1) << 6 | value(at + 2)
                    out[written] = UInt8(truncatingIfNeeded: bits >> 10)
                    out[written + 1] = UInt8(truncatingIfNeeded: bits >> 2)
                    written += 2
                    leftover = bits & 0x3
                }
                // ``invalid`` has bit 7 set, no 6-bit value does.
                valid = seen & 0x80 == 0 && leftover == 0
                count = written
            }
            return valid ? output : nil
        }
    }
}
