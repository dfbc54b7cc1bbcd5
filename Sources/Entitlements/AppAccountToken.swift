/// Apple's `appAccountToken`: the UUID an app passes to StoreKit at purchase, which Apple signs
/// into every transaction of that purchase. It is the only link Apple carries between a purchase
/// and the app's own account, so it decides whose a chain is (see ``ClaimRules``).
public enum AppAccountToken {
    /// The token in its canonical form (lowercase, 8-4-4-4-12 hex digits), or nil when `text`
    /// is not a UUID. Apple stores the token as the app gave it; comparing the canonical form
    /// means one account is never two because an app upper-cased its UUID.
    public static func canonical(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                out.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(byte + 32)
            default: return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical tokens `transactions` carry, each once; malformed ones are left out.
    public static func carried(by transactions: some Sequence<Transaction>) -> [String] {
        var tokens: [String] = []
        for transaction in transactions {
            guard let raw = transaction.appAccountToken, let token = canonical(raw),
                  !tokens.contains(token) else { continue }
            tokens.append(token)
        }
        return tokens
    }

    /// A new random token: a version 4 UUID from the system's generator (122 random bits), so
    /// it cannot be computed from the user id or guessed from other users' tokens.
    public static func random() -> String {
        UUIDText.random()
    }
}

/// A random version 4 UUID's text, from Swift's system random generator (getrandom on Linux).
enum UUIDText {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
