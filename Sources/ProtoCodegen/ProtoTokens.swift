/// One token of a .proto file, with the line it starts on for error messages.
struct ProtoToken: Equatable {
    enum Kind: Equatable {
        /// A name or keyword: letters, digits and underscores, not starting with a digit.
        case word(String)
        /// A decimal integer literal (proto field numbers and enum values are decimal here).
        case integer(Int)
        /// A double-quoted string literal, without its quotes.
        case string(String)
        /// One punctuation character: `{ } ( ) [ ] < > ; = , . -`.
        case symbol(Character)
    }

    var kind: Kind
    var line: Int
}

/// A `//` comment that fills its line, kept so the declaration below it can carry it as its
/// Swift documentation; comments after code on the same line are not documentation.
struct ProtoComment: Equatable {
    var line: Int
    var text: String
}

/// Splits .proto text into tokens and documentation comments.
///
/// Block comments, escapes in strings and non-decimal numbers are refused rather than half
/// understood: our protos do not use them, and a guess would generate the wrong Swift quietly.
struct ProtoTokenizer {
    let file: String

    func tokenize(_ text: String) throws -> (tokens: [ProtoToken], comments: [ProtoComment]) {
        var tokens: [ProtoToken] = []
        var comments: [ProtoComment] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            try tokenize(line: Array(line), number: index + 1, into: &tokens, comments: &comments)
        }
        return (tokens, comments)
    }

    private func tokenize(line: [Character], number: Int, into tokens: inout [ProtoToken],
                          comments: inout [ProtoComment]) throws {
        let firstTokenCount = tokens.count
        var i = 0
        while i < line.count {
            let c = line[i]
            if c.isWhitespace {
                i += 1
            } else if c == "/", i + 1 < line.count, line[i + 1] == "/" {
                if tokens.count == firstTokenCount {
                    comments.append(ProtoComment(line: number, text: Self.commentText(line[(i + 2)...])))
                }
                return
            } else if c == "/", i + 1 < line.count, line[i + 1] == "*" {
                throw error(number, "block comments (/* */) are not supported; use // comments")
            } else if c.isLetter || c == "_" {
                let start = i
                while i < line.count, line[i].isLetter || line[i].isNumber || line[i] == "_" { i += 1 }
                tokens.append(ProtoToken(kind: .word(String(line[start..<i])), line: number))
            } else if c.isNumber {
                let start = i
                while i < line.count, line[i].isLetter || line[i].isNumber { i += 1 }
                let literal = String(line[start..<i])
                guard let value = Int(literal), !(literal.count > 1 && literal.hasPrefix("0")) else {
                    throw error(number, "'\(literal)' is not a decimal integer; write numbers in decimal")
                }
                tokens.append(ProtoToken(kind: .integer(value), line: number))
            } else if c == "\"" {
                let start = i + 1
                i = start
                while i < line.count, line[i] != "\"" {
                    guard line[i] != "\\" else { throw error(number, "escapes in strings are not supported") }
                    i += 1
                }
                guard i < line.count else { throw error(number, "string not closed on its line") }
                tokens.append(ProtoToken(kind: .string(String(line[start..<i])), line: number))
                i += 1
            } else if "{}()[]<>;=,.-".contains(c) {
                tokens.append(ProtoToken(kind: .symbol(c), line: number))
                i += 1
            } else {
                throw error(number, "unexpected character '\(c)'")
            }
        }
    }

    /// The comment's words without the one space conventionally written after `//`, so
    /// indentation inside a comment (an example, a list) survives into the Swift docs.
    private static func commentText(_ rest: ArraySlice<Character>) -> String {
        let text = String(rest)
        let trimmed = text.hasPrefix(" ") ? String(text.dropFirst()) : text
        return String(trimmed.reversed().drop(while: \.isWhitespace).reversed())
    }

    private func error(_ line: Int, _ message: String) -> ProtoSyntaxError {
        ProtoSyntaxError(file: file, line: line, message: message)
    }
}
