/// A strict RFC 8259 JSON reader that remembers the line every value starts on.
///
/// Foundation's parsers report neither the line of a syntax error reliably across platforms
/// nor any position for a well-formed but wrong value, and catalog errors must name the line
/// to fix. The catalog is small and read once at startup, so a tree of nodes is fine here.
/// Nesting is capped so a hostile file cannot exhaust the stack.
struct CatalogJSONReader {
    struct Node {
        var line: Int
        var value: Value
    }

    enum Value {
        case object([(key: String, value: Node)])
        case array([Node])
        case string(String)
        /// The number's text, checked against JSON's grammar; fields convert what they need.
        case number(String)
        case bool(Bool)
        case null
    }

    struct Failure: Error {
        var line: Int
        var message: String
    }

    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var depth = 0

    /// Reads exactly one JSON value, allowing whitespace and a leading UTF-8 byte order mark.
    static func read(_ bytes: [UInt8]) throws(Failure) -> Node {
        var reader = CatalogJSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        let node = try reader.readValue()
        reader.skipWhitespace()
        if reader.position < bytes.count {
            throw reader.failure("unexpected \(reader.describeNext()) after the end of the document")
        }
        return node
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func readValue() throws(Failure) -> Node {
        skipWhitespace()
        let startLine = line
        guard position < bytes.count else { throw failure("unexpected end of file, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return Node(line: startLine, value: try readObject())
        case UInt8(ascii: "["): return Node(line: startLine, value: try readArray())
        case UInt8(ascii: "\""): return Node(line: startLine, value: .string(try readString()))
        case UInt8(ascii: "t"):
            try readLiteral("true")
            return Node(line: startLine, value: .bool(true))
        case UInt8(ascii: "f"):
            try readLiteral("false")
            return Node(line: startLine, value: .bool(false))
        case UInt8(ascii: "n"):
            try readLiteral("null")
            return Node(line: startLine, value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return Node(line: startLine, value: .number(try readNumber()))
        default:
            throw failure("unexpected \(describeNext()), expected a value")
        }
    }

    private mutating func readObject() throws(Failure) -> Value {
        try enterContainer()
        position += 1
        var members: [(key: String, value: Node)] = []
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { depth -= 1; return .object(members) }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeNext()), expected a quoted key")
            }
            let keyLine = line
            let key = try readString()
            if members.contains(where: { $0.key == key }) {
                throw Failure(line: keyLine, message: "key '\(key)' appears twice in one object")
            }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else {
                throw failure("unexpected \(describeNext()), expected ':' after key '\(key)'")
            }
            members.append((key, try readValue()))
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "}")) { depth -= 1; return .object(members) }
            throw failure("unexpected \(describeNext()), expected ',' or '}'")
        }
    }

    private mutating func readArray() throws(Failure) -> Value {
        try enterContainer()
        position += 1
        var elements: [Node] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { depth -= 1; return .array(elements) }
        while true {
            elements.append(try readValue())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "]")) { depth -= 1; return .array(elements) }
            throw failure("unexpected \(describeNext()), expected ',' or ']'")
        }
    }

    private mutating func enterContainer() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth {
            throw failure("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    private mutating func readString() throws(Failure) -> String {
        position += 1
        var utf8: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try readEscape(into: &utf8)
            case 0..<0x20:
                throw failure("a string contains a raw control character (byte 0x\(hex(byte)));"
                                + " strings cannot span lines")
            default:
                utf8.append(byte)
            }
        }
        throw failure("unexpected end of file inside a string")
    }

    private mutating func readEscape(into utf8: inout [UInt8]) throws(Failure) {
        guard position < bytes.count else { throw failure("unexpected end of file inside a string") }
        let escape = bytes[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try readHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else {
                    throw failure("a \\u escape holds an unpaired surrogate")
                }
                let low = UInt32(try readHex4())
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("a \\u escape holds an unpaired surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw failure("a \\u escape holds an unpaired surrogate")
            }
            UTF8.encode(unicode) { utf8.append($0) }
        default:
            position -= 1
            throw failure("unknown escape in a string: '\\' followed by \(describeNext())")
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count, let digit = hexValue(bytes[position]) else {
                throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private mutating func readNumber() throws(Failure) -> String {
        let start = position
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard consumeDigits() else { throw failure("a number needs digits") }
        }
        if consume(UInt8(ascii: ".")) {
            guard consumeDigits() else { throw failure("a number needs digits after '.'") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            guard consumeDigits() else { throw failure("a number needs digits in its exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func consumeDigits() -> Bool {
        let start = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        return position > start
    }

    private mutating func readLiteral(_ literal: StaticString) throws(Failure) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard bytes.count - position >= expected.count,
              bytes[position..<position + expected.count].elementsEqual(expected) else {
            throw failure("unexpected \(describeNext()), expected a value")
        }
        position += expected.count
    }

    /// Advances past `byte` when it is next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Newlines can only occur between tokens in valid JSON, so lines are counted here alone.
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: return
            }
            position += 1
        }
    }

    private func failure(_ message: String) -> Failure {
        Failure(line: line, message: message)
    }

    private func describeNext() -> String {
        guard position < bytes.count else { return "end of file" }
        let byte = bytes[position]
        if (0x21..<0x7F).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(hex(byte))"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
