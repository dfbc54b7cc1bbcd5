/// The fields of an `application/x-www-form-urlencoded` body or a query string.
///
/// Browsers send forms this way; `+` is a space and `%XX` a byte of UTF-8. A name given twice
/// keeps its first value: the console's forms never repeat a name, so a second one is noise.
public struct FormFields: Sendable, Equatable {
    public private(set) var values: [String: String] = [:]

    public init(_ encoded: some StringProtocol) {
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = FormFields.decode(parts[0])
            guard !name.isEmpty, values[name] == nil else { continue }
            values[name] = parts.count > 1 ? FormFields.decode(parts[1]) : ""
        }
    }

    /// The fields of a request body (a form POST).
    public init(body: [UInt8]) { self.init(String(decoding: body, as: UTF8.self)) }

    /// The fields of the query string of `path`.
    public init(queryOf path: String) {
        let query = path.firstIndex(of: "?").map { path[path.index(after: $0)...] } ?? ""
        self.init(query)
    }

    public subscript(name: String) -> String? { values[name] }

    /// `value` percent-encoded for a query string: only unreserved bytes stay as they are.
    public static func encode(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return encoded
    }

    /// `+` as a space, `%XX` as its byte; a `%` not followed by two hex digits stays as it is.
    static func decode(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < source.count,
                      let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) {
                bytes.append(high << 4 | low)
                index += 2
            } else {
                bytes.append(byte)
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
