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
    public func jsonBody() -> [UInt8] {
        var body = "{\"receipt-data\":" + Self.quoted(receiptData)
        if let password {
            body += ",\"password\":" + Self.quoted(password)
        }
        body += ",\"exclude-old-transactions\":" + (excludeOldTransactions ? "true" : "false") + "}"
        return Array(body.utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, nothing else.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
