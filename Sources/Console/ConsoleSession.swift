import JWS
import RPCCore
import Synchronization

/// One signed-in person: who they are, the token their forms must echo, and when it ends.
public struct ConsoleSession: Sendable {
    /// The caller the sign-in token named; roles decide what the pages offer.
    public var principal: Principal
    /// The sign-in token's digest (never the token), to ask the tokens file again on every
    /// request; nil without a tokens file.
    public var tokenDigest: SecretDigest?
    /// Every form posts it back (synchronizer token): a page another site makes the browser
    /// post cannot know it. Random per session, never derived from the sign-in token.
    public var csrfToken: String
    public var expiresAtMs: Int64
}

/// The console's sessions: random ids handed out in a cookie, kept in memory.
///
/// In memory on purpose: a session is a convenience over a token the person still holds, so a
/// restart signing everyone out costs a sign-in, while a stored session would be one more
/// secret at rest. Sessions end at a fixed lifetime from sign-in (no sliding renewal), at
/// sign-out, and when the store is full (the oldest goes first) so a flood of sign-ins cannot
/// grow memory without bound.
public final class ConsoleSessions: Sendable {
    private let sessions: Mutex<[String: ConsoleSession]>
    private let lifetimeMs: Int64
    private let capacity: Int
    private let now: @Sendable () -> Int64

    public init(lifetimeMs: Int64, capacity: Int = 10_000, now: @escaping @Sendable () -> Int64) {
        precondition(lifetimeMs > 0 && capacity > 0)
        sessions = Mutex([:])
        self.lifetimeMs = lifetimeMs
        self.capacity = capacity
        self.now = now
    }

    /// How long a session lasts, for the cookie's Max-Age.
    public var lifetimeSeconds: Int64 { lifetimeMs / 1000 }

    /// Starts a session for `principal`; returns its id (the cookie's value) and the session.
    public func open(for principal: Principal,
                     tokenDigest: SecretDigest? = nil) -> (id: String, session: ConsoleSession) {
        let id = ConsoleSessions.randomToken()
        let session = ConsoleSession(principal: principal, tokenDigest: tokenDigest,
                                     csrfToken: ConsoleSessions.randomToken(), expiresAtMs: now() + lifetimeMs)
        let at = now()
        sessions.withLock { table in
            table = table.filter { $0.value.expiresAtMs > at }
            if table.count >= capacity, let oldest = table.min(by: { $0.value.expiresAtMs < $1.value.expiresAtMs }) {
                table[oldest.key] = nil
            }
            table[id] = session
        }
        return (id, session)
    }

    /// The live session `id` names; nil for an unknown or expired one (which is forgotten).
    public func session(id: String) -> ConsoleSession? {
        let at = now()
        return sessions.withLock { table in
            guard let session = table[id] else { return nil }
            guard session.expiresAtMs > at else {
                table[id] = nil
                return nil
            }
            return session
        }
    }

    public func close(id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// 32 random bytes as hex, from the system's CSPRNG (getrandom on Linux).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var text = ""
        for _ in 0..<4 {
            let word = generator.next() as UInt64
            let digits = String(word, radix: 16)
            text += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return text
    }
}
