/// A verifyReceipt answer read once from a sample file, split around its transaction ids so a
/// shifted copy (every id + offset, each keeping its JSON type) costs one pass of appends.
struct SampleTemplate: Sendable {
    enum Piece: Sendable {
        case literal([UInt8])
        case id(UInt64)
    }

    static let idKeys = ["transaction_id", "original_transaction_id", "web_order_line_item_id"]

    let raw: [UInt8]
    let pieces: [Piece]
    let idCount: Int

    init(_ bytes: [UInt8]) {
        raw = bytes
        var pieces: [Piece] = []
        var literalStart = 0
        var i = 0
        var ids = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\""), let valueStart = SampleTemplate.idValueStart(bytes, keyAt: i) else {
                i += 1
                continue
            }
            var end = valueStart
            var value: UInt64 = 0
            while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
                value = value * 10 + UInt64(bytes[end] - UInt8(ascii: "0"))
                end += 1
            }
            guard end > valueStart else { i += 1; continue }
            pieces.append(.literal(Array(bytes[literalStart..<valueStart])))
            pieces.append(.id(value))
            ids += 1
            literalStart = end
            i = end
        }
        pieces.append(.literal(Array(bytes[literalStart...])))
        self.pieces = pieces
        idCount = ids
    }

    /// Where the digits of an id value start when `"` at `at` opens one of ``idKeys``
    /// (`"key": 123` or `"key": "123"`), else nil.
    static func idValueStart(_ bytes: [UInt8], keyAt at: Int) -> Int? {
        for key in idKeys {
            let quoted = Array(("\"" + key + "\"").utf8)
            guard at + quoted.count <= bytes.count, bytes[at..<(at + quoted.count)].elementsEqual(quoted) else {
                continue
            }
            var j = at + quoted.count
            while j < bytes.count, bytes[j] == UInt8(ascii: " ") { j += 1 }
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { return nil }
            j += 1
            while j < bytes.count, bytes[j] == UInt8(ascii: " ") { j += 1 }
            if j < bytes.count, bytes[j] == UInt8(ascii: "\"") { j += 1 }
            return j
        }
        return nil
    }

    /// The sample with every id shifted by `offset` (the raw sample when 0).
    func body(offset: UInt64) -> [UInt8] {
        guard offset != 0 else { return raw }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 64)
        for piece in pieces {
            switch piece {
            case .literal(let bytes): out.append(contentsOf: bytes)
            case .id(let value): out.append(contentsOf: Array(String(value + offset).utf8))
            }
        }
        return out
    }
}
