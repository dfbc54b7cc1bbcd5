/// Strict decoders for the two base64 alphabets a JWS uses.
///
/// Strict because a verifier should accept exactly one spelling of each token: the compact
/// parts are base64url without padding (RFC 7515 section 2), the `x5c` entries are standard
/// base64 with padding (RFC 7515 section 4.1.6). Anything else (whitespace, the other alphabet,
/// padding where none belongs, non-zero leftover bits) is rejected, never skipped.
enum Base64 {
    /// Decodes unpadded base64url; nil for any character outside `A-Z a-z 0-9 - _`.
    static func decodeURL<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        decode(text, alphabet: .url)
    }

    /// Decodes padded standard base64 (`+ /`, `=` to a multiple of four characters).
    static func decodeStandard<C: Collection<UInt8>>(_ text: C) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var body = Array(text)
        var padding = 0
        while padding < 2, body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        // Padding must be exactly what the unpadded length implies: "xx==" or "xxx=".
        guard padding == (4 - body.count % 4) % 4 else { return nil }
        return decode(body, alphabet: .standard)
    }

    private enum Alphabet { case url, standard }

    private static func sextet(_ byte: UInt8, _ alphabet: Alphabet) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-") where alphabet == .url: 62
        case UInt8(ascii: "_") where alphabet == .url: 63
        case UInt8(ascii: "+") where alphabet == .standard: 62
        case UInt8(ascii: "/") where alphabet == .standard: 63
        default: nil
        }
    }

    /// Decodes unpadded text; a final group of one character cannot encode a byte.
    private static func decode<C: Collection<UInt8>>(_ text: C, alphabet: Alphabet) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            guard let value = sextet(byte, alphabet) else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, or two different texts would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return output
    }
}
