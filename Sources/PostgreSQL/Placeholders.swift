/// SQL written once for SQLite and PostgreSQL: SQLite's `?` and `?N` parameters become
/// PostgreSQL's `$N`.
///
/// Numbering follows SQLite's rule, so one statement binds the same indexes on both engines:
/// `?N` is parameter N, and a bare `?` is one more than the largest index used so far. Question
/// marks inside string literals (`'...'`, `E'...'`, `$tag$...$tag$`), quoted identifiers
/// (`"..."`) and comments (`--`, nested `/* */`) are text, not parameters, and stay as written.
/// A `$N` already in the text is kept and counted, so PostgreSQL-only SQL passes through.
public enum Placeholders {
    /// The rewritten SQL and how many parameters it takes (the largest index used).
    public struct Rewritten: Equatable, Sendable {
        public var sql: String
        public var parameterCount: Int
    }

    public static func rewrite(_ sql: String) -> Rewritten {
        var scanner = Scanner(Array(sql.utf8))
        return scanner.rewrite()
    }

    private struct Scanner {
        let input: [UInt8]
        var index = 0
        var output: [UInt8] = []
        var largest = 0

        init(_ input: [UInt8]) {
            self.input = input
            output.reserveCapacity(input.count + 8)
        }

        mutating func rewrite() -> Rewritten {
            while index < input.count {
                let byte = input[index]
                switch byte {
                case UInt8(ascii: "?"): parameter()
                case UInt8(ascii: "'"): quoted(until: byte, backslashEscapes: startsEscapeString())
                case UInt8(ascii: "\""): quoted(until: byte, backslashEscapes: false)
                case UInt8(ascii: "-") where peek(1) == UInt8(ascii: "-"): lineComment()
                case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"): blockComment()
                case UInt8(ascii: "$"): dollar()
                default: copy(1)
                }
            }
            return Rewritten(sql: String(decoding: output, as: UTF8.self), parameterCount: largest)
        }

        func peek(_ offset: Int) -> UInt8? {
            index + offset < input.count ? input[index + offset] : nil
        }

        mutating func copy(_ count: Int) {
            let end = min(index + count, input.count)
            output.append(contentsOf: input[index..<end])
            index = end
        }

        /// `?` or `?N` at `index`: writes `$N`.
        mutating func parameter() {
            index += 1
            let digits = digitRun(from: index)
            let number: Int
            if digits > 0, let explicit = Int(String(decoding: input[index..<index + digits], as: UTF8.self)) {
                number = explicit
                index += digits
            } else {
                number = largest + 1
            }
            largest = max(largest, number)
            output.append(UInt8(ascii: "$"))
            output.append(contentsOf: String(number).utf8)
        }

        func digitRun(from start: Int) -> Int {
            var end = start
            while end < input.count, isDigit(input[end]) { end += 1 }
            return end - start
        }

        /// An `E'...'` string (backslash escapes) starts with an `E` that is not the end of a word.
        func startsEscapeString() -> Bool {
            guard index >= 1, input[index - 1] | 0x20 == UInt8(ascii: "e") else { return false }
            return index < 2 || !isIdentifierByte(input[index - 2])
        }

        /// Copies a `'...'` or `"..."` run; a doubled quote is an escaped quote, not the end.
        mutating func quoted(until quote: UInt8, backslashEscapes: Bool) {
            copy(1)
            while index < input.count {
                let byte = input[index]
                if backslashEscapes && byte == UInt8(ascii: "\\") {
                    copy(2)
                } else if byte == quote {
                    if peek(1) == quote {
                        copy(2)
                    } else {
                        copy(1)
                        return
                    }
                } else {
                    copy(1)
                }
            }
        }

        mutating func lineComment() {
            while index < input.count && input[index] != UInt8(ascii: "\n") { copy(1) }
        }

        /// PostgreSQL block comments nest.
        mutating func blockComment() {
            var depth = 0
            while index < input.count {
                if input[index] == UInt8(ascii: "/") && peek(1) == UInt8(ascii: "*") {
                    depth += 1
                    copy(2)
                } else if input[index] == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") {
                    depth -= 1
                    copy(2)
                    if depth == 0 { return }
                } else {
                    copy(1)
                }
            }
        }

        /// `$N` (a parameter already in PostgreSQL form) or a `$tag$...$tag$` string.
        mutating func dollar() {
            if index >= 1 && isIdentifierByte(input[index - 1]) {
                copy(1)  // part of an identifier such as `a$b`
                return
            }
            let digits = digitRun(from: index + 1)
            if digits > 0 {
                if let number = Int(String(decoding: input[index + 1..<index + 1 + digits], as: UTF8.self)) {
                    largest = max(largest, number)
                }
                copy(1 + digits)
                return
            }
            var end = index + 1
            while end < input.count, input[end] != UInt8(ascii: "$"), isIdentifierByte(input[end]) { end += 1 }
            guard end < input.count, input[end] == UInt8(ascii: "$") else {
                copy(1)
                return
            }
            let tag = Array(input[index...end])
            copy(tag.count)
            while index < input.count {
                if input[index] == UInt8(ascii: "$") && input[index...].starts(with: tag) {
                    copy(tag.count)
                    return
                }
                copy(1)
            }
        }
    }
}

private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
}

/// Letters, digits, `_`, `$` and every non-ASCII byte (PostgreSQL identifiers allow them).
private func isIdentifierByte(_ byte: UInt8) -> Bool {
    isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
}
