import Synchronization

/// Checks `authorization: Bearer <token>` against a set of accepted tokens.
///
/// Tokens come from a file (one per line, blank lines and `#` comments ignored) and can be
/// replaced while serving (SIGHUP) without dropping connections. Comparison takes the same
/// time wherever the first differing byte is, so response timing leaks nothing about a token.
public final class BearerTokenAuthenticator: Sendable {
    private let tokens: Mutex<[[UInt8]]>

    public init(fileContents: String) {
        tokens = Mutex(BearerTokenAuthenticator.parse(fileContents))
    }

    public var tokenCount: Int { tokens.withLock { $0.count } }

    /// Replaces the accepted tokens; calls already authenticated are unaffected.
    public func replace(fileContents: String) {
        let parsed = BearerTokenAuthenticator.parse(fileContents)
        tokens.withLock { $0 = parsed }
    }

    public func accepts(authorization: String?) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        let prefix = Array("Bearer ".utf8)
        guard bytes.count > prefix.count,
              bytes[..<prefix.count].elementsEqual(prefix, by: { $0 | 0x20 == $1 | 0x20 }) else { return false }
        let presented = bytes[prefix.count...]
        return tokens.withLock { accepted in
            var match = false
            for token in accepted where constantTimeEqual(token, presented) { match = true }
            return match
        }
    }

    static func parse(_ contents: String) -> [[UInt8]] {
        contents.split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingSpaces
            return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : Array(trimmed.utf8)
        }
    }
}

/// Compares every byte of equal-length inputs; the length itself is not secret.
func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    var j = b.startIndex
    for byte in a {
        difference |= byte ^ b[j]
        j += 1
    }
    return difference == 0
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
