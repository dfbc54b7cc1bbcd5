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
    /// Receipts run to hundreds of KB: the body is checked by OR-ing a table's verdicts, with no
    /// branch per byte (a `switch` per byte was a third of SubmitReceipt's CPU on a 300 KB one).
    static func isCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        var end = bytes.count
        // At most two trailing "="; one further back is caught below (not in the alphabet).
        if bytes[end - 1] == UInt8(ascii: "=") {
            end -= 1
            if bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
        }
        return outsideAlphabet.withUnsafeBufferPointer { table in
            var outside: UInt8 = 0
            for index in 0..<end { outside |= table[Int(bytes[index])] }
            return outside == 0
        }
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
