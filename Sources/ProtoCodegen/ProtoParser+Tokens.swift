/// Reading tokens, and services, which are checked but generate nothing.
extension ProtoParser {
    var current: ProtoToken? { position < tokens.count ? tokens[position] : nil }

    mutating func next() -> ProtoToken? {
        defer { position += 1 }
        return current
    }

    /// Consumes the keyword `word` and answers its line, where a declaration's docs end.
    @discardableResult
    mutating func expect(word: String) throws -> Int {
        guard let token = current, token.kind == .word(word) else { throw unexpected(current, "expected '\(word)'") }
        position += 1
        return token.line
    }

    mutating func expect(symbol: Character) throws {
        guard let token = current, token.kind == .symbol(symbol) else {
            throw unexpected(current, "expected '\(symbol)'")
        }
        position += 1
    }

    mutating func identifier() throws -> String {
        guard let token = current, case .word(let word) = token.kind else {
            throw unexpected(current, "expected a name")
        }
        position += 1
        return word
    }

    /// A name such as `entitlement.v1` or `HealthCheckResponse.ServingStatus`; a leading dot
    /// (a fully qualified name) is refused, since only one package is ever in scope.
    mutating func dottedName() throws -> String {
        var name = try identifier()
        while current?.kind == .symbol(".") {
            position += 1
            name += "." + (try identifier())
        }
        return name
    }

    mutating func integer() throws -> Int {
        guard let token = current, case .integer(let value) = token.kind else {
            throw unexpected(current, "expected a number")
        }
        position += 1
        return value
    }

    /// `service Name { rpc Method([stream] Request) returns ([stream] Response); ... }`.
    mutating func service() throws {
        try expect(word: "service")
        _ = try identifier()
        try expect(symbol: "{")
        while let token = current, token.kind != .symbol("}") {
            if token.kind == .symbol(";") { position += 1; continue }
            if case .word(let word) = token.kind, let reason = Self.unsupported[word] {
                throw error(at: token.line, reason)
            }
            try expect(word: "rpc")
            _ = try identifier()
            try streamableType()
            try expect(word: "returns")
            try streamableType()
            guard current?.kind != .symbol("{") else {
                throw error(at: current?.line ?? token.line, "rpc options ({ ... }) are not supported")
            }
            try expect(symbol: ";")
        }
        try expect(symbol: "}")
    }

    private mutating func streamableType() throws {
        try expect(symbol: "(")
        if current?.kind == .word("stream") { position += 1 }
        _ = try dottedName()
        try expect(symbol: ")")
    }

    func error(at line: Int, _ message: String) -> ProtoSyntaxError {
        ProtoSyntaxError(file: file, line: line, message: message)
    }

    /// An error at `token` (or at the last line, when the file ended early) naming what it found.
    func unexpected(_ token: ProtoToken?, _ expected: String) -> ProtoSyntaxError {
        guard let token else { return error(at: tokens.last?.line ?? 1, "\(expected), found the end of the file") }
        let found = switch token.kind {
        case .word(let word): "'\(word)'"
        case .integer(let value): "\(value)"
        case .string(let text): "\"\(text)\""
        case .symbol(let symbol): "'\(symbol)'"
        }
        return error(at: token.line, "\(expected), found \(found)")
    }
}
