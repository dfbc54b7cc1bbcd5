import JWS
import Synchronization

/// Checks `authorization: Bearer <token>` against a set of accepted tokens.
///
/// Tokens come from a file (one per line, blank lines and `#` comments ignored) and can be
/// replaced while serving (SIGHUP) without dropping connections. Tokens are kept as
/// ``SecretDigest``s: the presented token is hashed once and compared with every accepted one in
/// constant time (no early exit either), so response timing leaks neither a token nor its length.
public final class BearerTokenAuthenticator: Sendable {
    private let tokens: Mutex<[SecretDigest]>

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
        let presented = SecretDigest(bytes[prefix.count...])
        return tokens.withLock { accepted in
            var match = false
            for token in accepted where token.matches(presented) { match = true }
            return match
        }
    }

    static func parse(_ contents: String) -> [SecretDigest] {
        contents.split(whereSeparator: \.isNewline).compactMap { line in
            let trimmed = line.trimmingSpaces
            return trimmed.isEmpty || trimmed.hasPrefix("#") ? nil : SecretDigest(trimmed.utf8)
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
