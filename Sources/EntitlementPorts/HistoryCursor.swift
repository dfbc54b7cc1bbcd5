/// The position after the last event of a history page, carried in an opaque page token.
///
/// (occurred_at_ms, event_id) is unique because event ids are, so paging by it never skips or
/// repeats an event, however many share a millisecond. The token is hex of "1|<ms>|<event id>":
/// opaque to clients, versioned so the format can change, and free of characters that need
/// escaping in URLs or JSON. Part of the contract, so every backend issues the same tokens and a
/// client's token survives a move between them.
public struct HistoryCursor: Hashable, Sendable {
    public var occurredAtMs: Int64
    public var eventID: String

    public var token: String {
        let text = "1|\(occurredAtMs)|\(eventID)"
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(text.utf8.count * 2)
        for byte in text.utf8 {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    public init(occurredAtMs: Int64, eventID: String) {
        self.occurredAtMs = occurredAtMs
        self.eventID = eventID
    }

    /// Parses a token from ``token``; `nil` for anything this store did not issue.
    public init?(token: String) {
        let hex = Array(token.utf8)
        guard !hex.isEmpty, hex.count % 2 == 0, hex.count <= 2_048 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index < hex.count {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "1", let occurredAtMs = Int64(parts[1]), !parts[2].isEmpty
        else { return nil }
        self.init(occurredAtMs: occurredAtMs, eventID: String(parts[2]))
    }

    /// The cursor a request's page token names: `nil` (the first page) for none or an empty
    /// one; throws ``StoreError/Code/badPageToken`` for one no store issued.
    public static func parse(pageToken: String?) throws -> HistoryCursor? {
        guard let pageToken, !pageToken.isEmpty else { return nil }
        guard let cursor = HistoryCursor(token: pageToken) else {
            throw StoreError(code: .badPageToken,
                             message: "page_token is not one this service issued; "
                                 + "start again without a page_token")
        }
        return cursor
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
