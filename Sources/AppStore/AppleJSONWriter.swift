/// Writes one JSON object with its keys in the order given: the encoders' half of
/// ``AppleJSONObject``.
///
/// Hand-written for the reason ``VerifyReceiptRequest/jsonBody()`` is: `JSONSerialization`
/// orders keys arbitrarily and escapes "/" (common in base64 receipts and JWS) on some
/// platforms, while a fixed, Apple-like key order keeps simulated traffic readable and diffable
/// against captured bodies. Absent (`nil`) values are left out, as Apple leaves them out.
struct AppleJSONWriter {
    private var members: [String] = []

    init() {}

    mutating func string(_ key: String, _ value: String?) {
        guard let value else { return }
        append(key, VerifyReceiptRequest.quoted(value))
    }

    mutating func number(_ key: String, _ value: Int64?) {
        guard let value else { return }
        append(key, String(value))
    }

    mutating func number(_ key: String, _ value: Int?) {
        number(key, value.map(Int64.init))
    }

    mutating func bool(_ key: String, _ value: Bool?) {
        guard let value else { return }
        append(key, value ? "true" : "false")
    }

    mutating func object(_ key: String, _ value: AppleJSONWriter?) {
        guard let value else { return }
        append(key, value.text)
    }

    mutating func array(_ key: String, _ values: [AppleJSONWriter]) {
        append(key, "[" + values.map(\.text).joined(separator: ",") + "]")
    }

    /// Apple's string-typed milliseconds (`"1717171717000"`), with the human `date` and `_pst`
    /// companions Apple sends beside every `*_ms` field of a receipt.
    mutating func receiptDate(_ key: String, _ unixMs: Int64?) {
        guard let unixMs else { return }
        string(key, AppleDateText.gmt(unixMs))
        string(key + "_ms", String(unixMs))
        string(key + "_pst", AppleDateText.pacific(unixMs))
    }

    var text: String { "{" + members.joined(separator: ",") + "}" }

    var bytes: [UInt8] { Array(text.utf8) }

    private mutating func append(_ key: String, _ rendered: String) {
        members.append(VerifyReceiptRequest.quoted(key) + ":" + rendered)
    }
}
