import Entitlements

/// The value readers of ``VerifyReceiptAnswerReader``: each takes the forms ``LenientValue``
/// reads the usual way and declines (false) the unusual ones, leaving those to the general
/// path. A missing key, `null` and `""` read as absent, as ``AppleJSONObject`` reads them.
extension VerifyReceiptAnswerReader {
    /// A member's key as sent: its bytes, compared with literals by `~=` without a String.
    struct RawKey {
        let bytes: UnsafeBufferPointer<UInt8>

        /// Eight bytes per step once the lengths agree: every member's key meets up to 15 literals.
        /// Inlined into each `case`, so a literal of another length costs one compare with a
        /// constant; out of line every failed case was a call (~23k instructions of a 14-info answer).
        @inline(__always)
        static func ~= (pattern: StaticString, key: RawKey) -> Bool {
            let count = key.bytes.count
            guard pattern.utf8CodeUnitCount == count else { return false }
            guard count > 0, let base = key.bytes.baseAddress else { return true }
            let literal = UnsafeRawPointer(pattern.utf8Start), bytes = UnsafeRawPointer(base)
            var offset = 0
            while offset + 8 <= count {
                guard literal.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
                offset += 8
            }
            while offset < count {
                guard literal.load(fromByteOffset: offset, as: UInt8.self)
                        == bytes.load(fromByteOffset: offset, as: UInt8.self) else { return false }
                offset += 1
            }
            return true
        }
    }

    /// Which mapped keys an object had, so a repeated one (whose last value would win in the
    /// general path) is declined instead of read twice.
    struct FieldsSeen {
        private var bits: UInt32 = 0
        mutating func first(_ field: Int) -> Bool {
            let bit: UInt32 = 1 << field
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// Reads an object's members, handing each key to `body` positioned at its value; false
    /// (decline) unless every member reads and the object closes. Escaped keys decline.
    mutating func members(_ body: (inout VerifyReceiptAnswerReader, RawKey) -> Bool) -> Bool {
        json.skipWhitespace()
        guard json.peek == UInt8(ascii: "{") else { return false }
        return items(closedBy: UInt8(ascii: "}")) { reader in
            guard reader.json.peek == UInt8(ascii: "\""), let key = reader.json.scanString(), !key.escaped else {
                return false
            }
            reader.json.skipWhitespace()
            guard reader.json.peek == UInt8(ascii: ":") else { return false }
            reader.json.index += 1
            reader.json.skipWhitespace()
            return body(&reader, RawKey(bytes: key.body))
        }
    }

    /// Reads an array's elements (at its `[`) with `body` at each; false unless all read.
    mutating func elements(_ body: (inout VerifyReceiptAnswerReader) -> Bool) -> Bool {
        items(closedBy: UInt8(ascii: "]"), body)
    }

    /// The walk objects and arrays share, from the opening bracket: `item` at each item, commas
    /// between, until `closing`; false unless every item reads, the nesting limit holds and the
    /// bracket closes.
    private mutating func items(closedBy closing: UInt8, _ item: (inout VerifyReceiptAnswerReader) -> Bool) -> Bool {
        guard json.depth < AppleJSONParser.maximumDepth else { return false }
        json.depth += 1
        defer { json.depth -= 1 }
        json.index += 1
        json.skipWhitespace()
        if json.peek == closing {
            json.index += 1
            return true
        }
        while true {
            json.skipWhitespace()
            guard item(&self) else { return false }
            json.skipWhitespace()
            switch json.peek {
            case UInt8(ascii: ","): json.index += 1
            case closing:
                json.index += 1
                return true
            default: return false
            }
        }
    }

    /// Reads past a `null`, the one absent-like form every field shares.
    mutating func isNull() -> Bool {
        guard json.peek == UInt8(ascii: "n") else { return false }
        return json.literal("null", .null) != nil
    }

    /// A string, or a non-negative integer as its decimal text (``LenientValue/text(_:)``).
    mutating func text(into value: inout String?) -> Bool {
        switch json.peek ?? 0 {
        case UInt8(ascii: "\""):
            guard let string = json.scanString() else { return false }
            value = string.body.isEmpty ? nil : AppleJSONParser.text(string)
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            // integer() accepted only digits without a leading zero (no sign, fraction or
            // exponent) that fit in UInt64, so they are exactly the number's decimal text:
            // taken as they are instead of printing the parsed value again.
            let start = json.index
            guard case .number? = json.integer() else { return false }
            value = String(decoding: UnsafeBufferPointer(rebasing: json.bytes[start..<json.index]), as: UTF8.self)
            return true
        default:
            return isNull()
        }
    }

    /// A whole number sent as a non-negative JSON integer or as a string of 1–18 digits.
    mutating func int64(into value: inout Int64?) -> Bool {
        switch json.peek ?? 0 {
        case UInt8(ascii: "\""):
            guard let string = json.scanString(), !string.escaped else { return false }
            guard !string.body.isEmpty else { return true }
            guard string.body.count <= 18 else { return false }
            var number: Int64 = 0
            for byte in string.body {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
                number = number * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            value = number
            return true
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .number(let number)? = json.integer(), let whole = number.int64 else { return false }
            value = whole
            return true
        default:
            return isNull()
        }
    }

    mutating func integer(into value: inout Int?) -> Bool {
        var whole: Int64?
        guard int64(into: &whole) else { return false }
        if let whole { value = Int(whole) }
        return true
    }

    /// `true`/`false`, `1`/`0`, and those as lowercase strings; other spellings decline.
    mutating func bool(into value: inout Bool?) -> Bool {
        switch json.peek ?? 0 {
        case UInt8(ascii: "t"):
            guard json.literal("true", .null) != nil else { return false }
            value = true
        case UInt8(ascii: "f"):
            guard json.literal("false", .null) != nil else { return false }
            value = false
        case UInt8(ascii: "\""):
            guard let string = json.scanString(), !string.escaped else { return false }
            switch RawKey(bytes: string.body) {
            case "": break
            case "true", "1": value = true
            case "false", "0": value = false
            default: return false
            }
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .number(let number)? = json.integer() else { return false }
            switch number.integerText {
            case "1": value = true
            case "0": value = false
            default: return false
            }
        default:
            return isNull()
        }
        return true
    }

    /// An environment name ``Environment/init(appleName:)`` knows; another name declines.
    mutating func environment(into value: inout Environment?) -> Bool {
        var name: String?
        guard text(into: &name) else { return false }
        guard let name else { return true }
        guard let environment = Environment(appleName: name) else { return false }
        value = environment
        return true
    }
}
