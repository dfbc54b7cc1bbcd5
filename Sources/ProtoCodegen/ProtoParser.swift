/// Parses the proto3 subset our .proto files use, and refuses everything else by file and line.
///
/// Strict on purpose: this is not a protobuf compiler, and a construct it half understood
/// (an `optional`, a `oneof`, a field option) would become Swift that encodes differently from
/// every other runtime without failing a build. A refusal says what is unsupported, so whoever
/// needs it knows to extend the generator.
public struct ProtoParser {
    let file: String
    var tokens: [ProtoToken]
    var position = 0
    /// Comment text by line, for the documentation of the declaration below it.
    let comments: [Int: String]

    /// Words that start a declaration our generator does not implement, with what to do.
    static let unsupported: [String: String] = [
        "import": "imports are not supported: keep each package in one file",
        "option": "options are not supported",
        "optional": "'optional' (explicit presence) is not supported: use a plain proto3 field",
        "oneof": "'oneof' is not supported: use separate fields and check them in the service",
        "map": "map fields are not supported: use a repeated message of key and value",
        "reserved": "'reserved' is not supported: keep it as a comment, so no one reuses the number",
        "extend": "extensions are not supported",
        "extensions": "extensions are not supported",
        "required": "'required' is proto2, not proto3",
        "group": "groups are proto2, not proto3",
    ]

    /// Parses `text`, the contents of the .proto at `file` (the path is only used in messages).
    public static func parse(_ text: String, file: String) throws -> ProtoFile {
        let (tokens, comments) = try ProtoTokenizer(file: file).tokenize(text)
        let byLine = Dictionary(comments.map { ($0.line, $0.text) }, uniquingKeysWith: { first, _ in first })
        var parser = ProtoParser(file: file, tokens: tokens, comments: byLine)
        let firstLine = tokens.first?.line ?? Int.max
        let header = comments.filter { $0.line < firstLine }.map(\.text)
        return try parser.parseFile(doc: header)
    }

    private mutating func parseFile(doc: [String]) throws -> ProtoFile {
        try expect(word: "syntax")
        try expect(symbol: "=")
        let syntaxLine = current?.line ?? 1
        guard case .string("proto3")? = next()?.kind else {
            throw error(at: syntaxLine, "only syntax = \"proto3\" is supported")
        }
        try expect(symbol: ";")
        var package: String?
        var messages: [ProtoMessage] = []
        var enums: [ProtoEnum] = []
        while let token = current {
            switch token.kind {
            case .word("package"):
                guard package == nil else { throw error(at: token.line, "a second package statement") }
                position += 1
                package = try dottedName()
                try expect(symbol: ";")
            case .word("message"): messages.append(try message())
            case .word("enum"): enums.append(try enumeration())
            case .word("service"): try service()
            case .symbol(";"): position += 1
            case .word(let word) where Self.unsupported[word] != nil:
                throw error(at: token.line, Self.unsupported[word] ?? word)
            default: throw unexpected(token, "expected package, message, enum or service")
            }
        }
        guard let package else {
            throw error(at: 1, "no package statement: the Swift namespace is named after the package")
        }
        try checkUnique((messages.map { ($0.name, $0.line) } + enums.map { ($0.name, $0.line) }), "type")
        return ProtoFile(path: file, package: package, doc: doc, messages: messages, enums: enums)
    }

    private mutating func message() throws -> ProtoMessage {
        let line = try expect(word: "message")
        var message = ProtoMessage(name: try identifier(), doc: doc(above: line), line: line, fields: [],
                                   messages: [], enums: [])
        try expect(symbol: "{")
        while let token = current, token.kind != .symbol("}") {
            switch token.kind {
            case .word("message"): message.messages.append(try self.message())
            case .word("enum"): message.enums.append(try enumeration())
            case .symbol(";"): position += 1
            case .word(let word):
                if let reason = Self.unsupported[word] { throw error(at: token.line, reason) }
                message.fields.append(try field())
            default: throw unexpected(token, "expected a field, message or enum")
            }
        }
        try expect(symbol: "}")
        try checkFields(message.fields)
        try checkUnique(message.messages.map { ($0.name, $0.line) } + message.enums.map { ($0.name, $0.line) }
                        + message.fields.map { ($0.name, $0.line) }, "name")
        return message
    }

    private mutating func field() throws -> ProtoField {
        let line = current?.line ?? 0
        let isRepeated = current?.kind == .word("repeated")
        if isRepeated { position += 1 }
        let type = try dottedName()
        let name = try identifier()
        try expect(symbol: "=")
        let number = try integer()
        if current?.kind == .symbol("[") {
            throw error(at: current?.line ?? line, "field options ([...]) are not supported")
        }
        try expect(symbol: ";")
        return ProtoField(name: name, number: number, type: type, isRepeated: isRepeated, doc: doc(above: line),
                          line: line)
    }

    /// Field numbers a tag can carry, minus the range protobuf reserves for its implementation.
    private func checkFields(_ fields: [ProtoField]) throws {
        var seen: Set<Int> = []
        for field in fields {
            guard (1...536_870_911).contains(field.number), !(19_000...19_999).contains(field.number) else {
                throw error(at: field.line, "field number \(field.number) is outside 1...536870911 or reserved "
                            + "(19000...19999)")
            }
            guard seen.insert(field.number).inserted else {
                throw error(at: field.line, "field number \(field.number) is used twice")
            }
        }
    }

    /// Enum values numbered 0, 1, 2... in order: `ProtobufNamedEnum`'s name table is indexed
    /// by number, and proto3 requires the first value to be 0 anyway.
    private mutating func enumeration() throws -> ProtoEnum {
        let line = try expect(word: "enum")
        var result = ProtoEnum(name: try identifier(), doc: doc(above: line), line: line, values: [])
        try expect(symbol: "{")
        while let token = current, token.kind != .symbol("}") {
            if token.kind == .symbol(";") { position += 1; continue }
            if case .word(let word) = token.kind, let reason = Self.unsupported[word] {
                throw error(at: token.line, reason)
            }
            let name = try identifier()
            try expect(symbol: "=")
            let negative = current?.kind == .symbol("-")
            if negative { position += 1 }
            let number = try integer() * (negative ? -1 : 1)
            guard number == result.values.count else {
                throw error(at: token.line, "\(name) is numbered \(number), expected \(result.values.count): "
                            + "enum values must be numbered 0, 1, 2... in order")
            }
            try expect(symbol: ";")
            result.values.append(ProtoEnumValue(name: name, number: number, doc: doc(above: token.line),
                                                line: token.line))
        }
        try expect(symbol: "}")
        guard !result.values.isEmpty else { throw error(at: line, "enum \(result.name) has no values") }
        try checkUnique(result.values.map { ($0.name, $0.line) }, "enum value")
        return result
    }

    private func checkUnique(_ names: [(String, Int)], _ kind: String) throws {
        var seen: Set<String> = []
        for (name, line) in names where !seen.insert(name).inserted {
            throw error(at: line, "\(kind) \(name) is declared twice")
        }
    }

    /// The contiguous `//` lines right above `line`; a blank line ends a declaration's docs.
    func doc(above line: Int) -> [String] {
        var lines: [String] = []
        var number = line - 1
        while let text = comments[number] {
            lines.append(text)
            number -= 1
        }
        return lines.reversed()
    }
}
