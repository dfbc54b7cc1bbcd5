/// Swift text built line by line at the right indentation, so the emitters read as the code
/// they write rather than as string concatenation.
struct SwiftSource {
    private(set) var text = ""
    private var depth = 0

    /// Appends one line at the current indentation; an empty line stays empty.
    mutating func line(_ code: String = "") {
        text += code.isEmpty ? "\n" : String(repeating: "    ", count: depth) + code + "\n"
    }

    /// `///` documentation, one comment line per line of `lines`.
    mutating func doc(_ lines: [String]) {
        for text in lines {
            line(text.isEmpty ? "///" : "/// " + text)
        }
    }

    /// `opener {`, the body one level deeper, then `}`.
    mutating func block(_ opener: String, _ body: (inout SwiftSource) throws -> Void) rethrows {
        line(opener + " {")
        depth += 1
        try body(&self)
        depth -= 1
        line("}")
    }
}
