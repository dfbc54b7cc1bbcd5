import JWS
import Synchronization

/// Checks `authorization: Bearer <token>` against a set of accepted tokens and says who the
/// caller is (``Principal``).
///
/// Tokens come from a file, one per line (blank lines and `#` comments ignored), optionally
/// followed by fields: `TOKEN name=alice roles=viewer,support` (``TokenLine``). The file can be
/// replaced while serving (SIGHUP) without dropping connections. Tokens are kept as
/// ``SecretDigest``s: the presented token is hashed once and compared with every accepted one in
/// constant time (no early exit either), so response timing leaks neither a token nor its length.
public final class BearerTokenAuthenticator: Sendable {
    private let tokens: Mutex<[(digest: SecretDigest, principal: Principal)]>

    /// Refuses a file with a line it cannot read (an unknown field or role) rather than serve
    /// with a token that silently lost or gained access.
    public init(fileContents: String) throws(TokensFileError) {
        tokens = Mutex(try BearerTokenAuthenticator.parse(fileContents))
    }

    public var tokenCount: Int { tokens.withLock { $0.count } }

    /// Replaces the accepted tokens; calls already authenticated are unaffected. On an error
    /// the previous tokens stay.
    public func replace(fileContents: String) throws(TokensFileError) {
        let parsed = try BearerTokenAuthenticator.parse(fileContents)
        tokens.withLock { $0 = parsed }
    }

    public func accepts(authorization: String?) -> Bool { principal(authorization: authorization) != nil }

    /// The caller an `authorization` header value names, or nil when it is missing, not a
    /// bearer token, or no accepted token.
    public func principal(authorization: String?) -> Principal? {
        guard let authorization else { return nil }
        let bytes = Array(authorization.utf8)
        let prefix = Array("Bearer ".utf8)
        guard bytes.count > prefix.count,
              bytes[..<prefix.count].elementsEqual(prefix, by: { $0 | 0x20 == $1 | 0x20 }) else { return nil }
        return principal(token: bytes[prefix.count...])
    }

    /// The caller a bare token names (one typed into a sign-in form), or nil when it is not accepted.
    public func principal(token: some Collection<UInt8>) -> Principal? {
        principal(digest: SecretDigest(token))
    }

    /// The caller a token's digest names now, or nil once the token is no longer accepted: a
    /// console session keeps the digest of the token it signed in with (never the token) and
    /// asks again on every request, so a token removed or demoted by SIGHUP takes effect at once.
    public func principal(digest presented: SecretDigest) -> Principal? {
        tokens.withLock { accepted in
            var match: Principal?
            for token in accepted where token.digest.matches(presented) { match = token.principal }
            return match
        }
    }

    static func parse(_ contents: String) throws(TokensFileError) -> [(digest: SecretDigest, principal: Principal)] {
        var parsed: [(digest: SecretDigest, principal: Principal)] = []
        let lines = contents.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let entry = try TokenLine(trimmed, lineNumber: index + 1)
            parsed.append((SecretDigest(entry.token.utf8), entry.principal))
        }
        return parsed
    }
}

/// A line of the tokens file that could not be read; names the line, never its token.
public struct TokensFileError: Error, Sendable, CustomStringConvertible {
    public var lineNumber: Int
    public var message: String
    public var description: String { "tokens file line \(lineNumber): \(message)" }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
