/// The body POSTed to Apple's verifyReceipt endpoints.
///
/// The body is written by hand rather than by `JSONSerialization`, which escapes "/" (common in
/// base64) on some platforms and orders keys arbitrarily: a fixed, byte-exact body keeps the
/// Apple fake's assertions and captured traffic readable.
public struct VerifyReceiptRequest: Sendable, Hashable {
    /// The app receipt, base64 as the device sent it.
    public var receiptData: String
    /// The app's shared secret; required for auto-renewables to get `latest_receipt_info` and
    /// `pending_renewal_info`. Omitted from the body when `nil`.
    public var password: String?
    /// `true` asks Apple to return only the latest renewal of each subscription; we keep the
    /// default `false` so refunds of older periods stay visible.
    public var excludeOldTransactions: Bool

    public init(receiptData: String, password: String?, excludeOldTransactions: Bool = false) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    /// `{"receipt-data":"…","password":"…","exclude-old-transactions":false}` as UTF-8.
    ///
    /// Built in bytes: receipts reach hundreds of KB and base64 never needs escaping, so the
    /// common case is one bulk copy rather than a String append per character.
    public func jsonBody() -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(receiptData.utf8.count + (password?.utf8.count ?? 0) + 80)
        body.append(contentsOf: "{\"receipt-data\":".utf8)
        Self.appendQuoted(receiptData, to: &body)
        if let password {
            body.append(contentsOf: ",\"password\":".utf8)
            Self.appendQuoted(password, to: &body)
        }
        body.append(contentsOf: ",\"exclude-old-transactions\":".utf8)
        body.append(contentsOf: (excludeOldTransactions ? "true" : "false").utf8)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, nothing else.
    static func quoted(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendQuoted(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let utf8 = string.utf8
        // A native string's bytes are contiguous: one scan and one bulk copy of the receipt
        // instead of the generic UTF8View walk, which showed in SubmitReceipt's profile.
        let copiedInBulk = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard isPlainASCII(bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copiedInBulk == true {
            return out.append(UInt8(ascii: "\""))
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` are ASCII with nothing to escape, eight bytes per step: a byte-wise
    /// `contains(where:)` cost ~5 instructions a byte, 20 k per 4 KB receipt (1.3 % of a distinct
    /// SubmitReceipt's instructions). A byte above 0x7F, which needs no escaping either, also
    /// says false; such a string takes the byte loop, which copies it unchanged.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            guard !AppleJSONParser.hasSpecialByte(word) else { return false }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else {
                return false
            }
            index += 1
        }
        return true
    }
}
