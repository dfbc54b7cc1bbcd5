/// When the rules judge a user's facts: the instant states are evaluated at, and which facts
/// count.
///
/// "Now" and an explicit instant differ only in which facts count, never in the state rules.
/// At now, everything Apple has told us counts, even a transaction dated after our clock:
/// Apple's clock and ours differ by seconds, and Apple charges a renewal before its period
/// starts, so a purchase dated 1.5 s ahead or a paid period starting at the current expiry is
/// money already taken, not the future. An explicit instant asks what was true then (a user
/// who lapsed in March and resubscribed in June was not entitled in April), so transactions
/// purchased after it, renewal info signed after it and upgrades made after it had not
/// happened yet and are ignored.
public struct EvaluationTime: Sendable, Hashable {
    /// The instant states are judged at (expiry, grace period): the answer's `evaluated_at_ms`.
    public let instantMs: Int64
    /// Facts dated after this had not happened yet; `Int64.max` for now (all of them count).
    let factsUpToMs: Int64

    /// Now, by the caller's clock: every stored fact counts.
    public static func now(_ clockMs: Int64) -> EvaluationTime {
        EvaluationTime(instantMs: clockMs, factsUpToMs: .max)
    }

    /// An instant the caller named (CheckEntitlement's `at_ms`): facts dated after it are ignored.
    public static func at(_ instantMs: Int64) -> EvaluationTime {
        EvaluationTime(instantMs: instantMs, factsUpToMs: instantMs)
    }
}
