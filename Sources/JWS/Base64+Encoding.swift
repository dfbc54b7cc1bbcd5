extension Base64 {
    private static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded base64url, the spelling of every compact JWS part (RFC 7515 section 2).
    static func encodeURL(_ bytes: some Collection<UInt8>) -> String {
        encode(Array(bytes), alphabet: urlAlphabet, padded: false)
    }

    /// Padded standard base64, the spelling of `x5c` entries (RFC 7515 section 4.1.6).
    static func encodeStandard(_ bytes: some Collection<UInt8>) -> String {
        encode(Array(bytes), alphabet: standardAlphabet, padded: true)
    }

    /// Exactly the texts ``decodeURL(_:)`` and ``decodeStandard(_:)`` accept: leftover bits
    /// zero, padding only where the length implies it.
    private static func encode(_ bytes: [UInt8], alphabet: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * offset) }
            let characters = chunk.count + 1
            for position in 0..<4 {
                if position < characters {
                    out.append(alphabet[Int((group >> (18 - 6 * position)) & 0x3f)])
                } else if padded {
                    out.append(UInt8(ascii: "="))
                }
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
