/// A purpose-built JSON decoder for the documents Apple sends: objects of ASCII strings,
/// integers, booleans, `null`, arrays and nested objects.
///
/// Why: `JSONSerialization` plus the dynamic casts of reading its `Any` tree were a third of
/// the CPU of a SubmitReceipt call and a tenth of a V2 notification's. This reads the same
/// documents in one pass into ``AppleJSONValue`` without bridging.
///
/// It never decides that bytes are invalid: anything outside that subset (non-ASCII bytes,
/// `\u` escapes, fractions and exponents, integers beyond 64 bits, trailing commas, a top level
/// other than an object, nesting deeper than 512, any syntax error) makes it decline with `nil`,
/// and the caller hands the bytes to `JSONSerialization`. So acceptance, error answers and every
/// quirk of number typing stay `JSONSerialization`'s, and for what it does accept it must give
/// an equal value (the differential test and the `json-decoders` fuzz target check that).
struct AppleJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// `JSONSerialization`'s limit; deeper documents are its to refuse.
    static let maximumDepth = 512

    /// The document's top-level object, or `nil` to decline.
    static func decode(_ bytes: [UInt8]) -> AppleJSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = AppleJSONParser(bytes: buffer)
            parser.skipWhitespace()
            guard parser.peek == UInt8(ascii: "{"), let value = parser.value() else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? value : nil
        }
    }

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func value() -> AppleJSONValue? {
        guard let byte = peek else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(AppleJSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer()
        default: return nil
        }
    }

    /// Reads past one value by exactly ``value()``'s rules without making it: false to decline.
    /// (The verifyReceipt reader skips the fields it does not map: most of an answer's bytes.)
    mutating func skipValue() -> Bool {
        guard let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "\""): return scanString() != nil
        case UInt8(ascii: "t"): return literal("true", .null) != nil
        case UInt8(ascii: "f"): return literal("false", .null) != nil
        case UInt8(ascii: "n"): return literal("null", .null) != nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return integer() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { return false }
            depth += 1
            defer { depth -= 1 }
            let isObject = byte == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipWhitespace()
            if peek == close {
                index += 1
                return true
            }
            while true {
                skipWhitespace()
                if isObject {
                    guard peek == UInt8(ascii: "\""), scanString() != nil else { return false }
                    skipWhitespace()
                    guard peek == UInt8(ascii: ":") else { return false }
                    index += 1
                    skipWhitespace()
                }
                guard skipValue() else { return false }
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek == close {
                    index += 1
                    return true
                } else {
                    return false
                }
            }
        default: return false
        }
    }

    private mutating func object() -> AppleJSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1  // {
        var members: [(key: String, value: AppleJSONValue)] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(AppleJSONFields(members))
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard let value = value() else { return nil }
            members.append((key: key, value: value))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(AppleJSONFields(members))
            default: return nil
            }
        }
    }

    private mutating func array() -> AppleJSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1  // [
        var elements: [AppleJSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let value = value() else { return nil }
            elements.append(value)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string of printable ASCII with the two-character escapes; declines on `\u`, control
    /// characters and bytes above 0x7F (their validation and normalization stay Foundation's).
    private mutating func string() -> String? {
        scanString().map(Self.text)
    }

    /// The string's text from what ``scanString()`` found.
    static func text(_ string: (body: UnsafeBufferPointer<UInt8>, escaped: Bool)) -> String {
        string.escaped ? unescape(string.body) : String(decoding: string.body, as: UTF8.self)
    }

    /// Reads past a string (at its opening quote) by ``string()``'s rules without making it: its
    /// body between the quotes, still escaped, and whether it has escapes; `nil` to decline.
    mutating func scanString() -> (body: UnsafeBufferPointer<UInt8>, escaped: Bool)? {
        index += 1  // "
        let start = index
        var escaped = false
        while index < bytes.count {
            index = plainRun(from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let body = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return (body, escaped)
            }
            guard byte >= 0x20, byte < 0x80 else { return nil }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count, Self.unescaped(bytes[index + 1]) != nil else { return nil }
                escaped = true
                index += 2
            } else {
                index += 1
            }
        }
        return nil
    }

    /// The index of the first byte from `start` on that ``string()`` must look at (`"`, `\\`, a
    /// control character, a byte above 0x7F), eight bytes per step; the last seven bytes of
    /// the document are left to the byte loop (it returns the first of them if it gets there).
    ///
    /// A V2 notification's strings are compact JWS of 5-20 KB, most of its JSON bytes; a
    /// verifyReceipt answer's are ~300 keys and values of 10-30 bytes, whose closing quote is
    /// located inside its word instead of being walked to a byte at a time (each step of that
    /// walk loaded and tested the same word again): 62 k -> 31 k instructions per answer.
    private func plainRun(from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        var index = start
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let first = Self.firstSpecialByte(word)
            if first < 8 { return index + first }
            index += 8
        }
        return index
    }

    /// Whether any byte of `word` is `"`, `\\`, below 0x20 or above 0x7F (exactly: no false
    /// negatives or positives).
    static func hasSpecialByte(_ word: UInt64) -> Bool { specialBytes(word) != 0 }

    /// The offset (0-7) of the first byte of `word` (loaded little-endian) that is `"`, `\\`,
    /// below 0x20 or above 0x7F; 8 when there is none.
    static func firstSpecialByte(_ word: UInt64) -> Int { specialBytes(word).trailingZeroBitCount / 8 }

    /// The high bit of each byte of `word` (little-endian: the first byte lowest) that is `"`,
    /// `\\`, below 0x20 or above 0x7F, by the classic "has a byte less than n" bit tricks
    /// (n <= 128). Those can also flag a plain byte, but only above a flagged one (a borrow
    /// runs upwards only), so the lowest bit set is exactly the first special byte and the word
    /// is zero exactly when none is.
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\""))))
        let backslash = hasZeroByte(word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
        return (word & highs) | control | quote | backslash
    }

    /// The body of a string whose escapes were already checked by ``string()``.
    private static func unescape(_ body: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var index = 0
        while index < body.count {
            if body[index] == UInt8(ascii: "\\"), let byte = unescaped(body[index + 1]) {
                out.append(byte)
                index += 2
            } else {
                out.append(body[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// What `\` followed by `byte` stands for; `nil` for `u` (declined) and invalid escapes.
    private static func unescaped(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return byte
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// An integer without leading zeros that fits `Int64` or `UInt64`; declines on a fraction,
    /// an exponent or overflow, whose typing is `JSONSerialization`'s.
    mutating func integer() -> AppleJSONValue? {
        let negative = peek == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var magnitude: UInt64 = 0
        // Nineteen digits cannot overflow (10^19 - 1 < UInt64.max), so they skip the overflow
        // checks, most of this function's cost on the ids and dates of every receipt info (~100
        // numbers per verifyReceipt answer). A twentieth digit and on take the checked loop.
        let uncheckedEnd = min(bytes.count, start + 19)
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= uncheckedEnd {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                guard let eight = Self.eightDigits(word) else { break }
                magnitude = magnitude &* 100_000_000 &+ eight
                index += 8
            }
        }
        while index < uncheckedEnd {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            magnitude = magnitude &* 10 &+ UInt64(digit)
            index += 1
        }
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = UInt64(bytes[index] - UInt8(ascii: "0"))
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        switch peek {
        case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
        default: break
        }
        if !negative { return .number(AppleJSONNumber(storage: .unsigned(magnitude))) }
        if magnitude <= UInt64(Int64.max) { return .number(AppleJSONNumber(storage: .signed(-Int64(magnitude)))) }
        if magnitude == UInt64(Int64.max) + 1 { return .number(AppleJSONNumber(storage: .signed(.min))) }
        return nil
    }

    /// The value of eight ASCII digits loaded little-endian (the first digit in the lowest
    /// byte), or nil when any byte is not a digit.
    ///
    /// Why: the ids and `*_ms` dates of a verifyReceipt answer are 13-19 digits, ~100 of them per
    /// answer; taking them eight at a time (adjacent digits, then pairs, then fours combined by
    /// multiply and shift in one register) replaces most of the per-digit loop and its tests.
    static func eightDigits(_ word: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let digits = word &- ones &* 0x30
        // A byte is a digit when it is 0x30-0x39: its high nibble is 3 and adding 6 keeps it 3.
        guard word & (ones &* 0xF0) == ones &* 0x30,
              (word &+ ones &* 0x06) & (ones &* 0xF0) == ones &* 0x30 else { return nil }
        let pairs = (digits &* 10 &+ (digits >> 8)) & 0x00FF_00FF_00FF_00FF
        let fours = (pairs &* 100 &+ (pairs >> 16)) & 0x0000_FFFF_0000_FFFF
        return (fours &* 10_000 &+ (fours >> 32)) & 0xFFFF_FFFF
    }

    mutating func literal(_ word: StaticString, _ value: AppleJSONValue) -> AppleJSONValue? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }
}
