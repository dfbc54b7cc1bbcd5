/// The answer to CheckEntitlement: may the user use it, and the entitlements that say so.
public struct EntitlementCheck: Sendable, Hashable {
    /// True when any of ``entitlements`` grants access (ACTIVE or GRACE_PERIOD).
    public var active: Bool
    /// The entitlements matching the request, in ``EntitlementRules`` list order.
    public var entitlements: [Entitlement]
    /// The instant the rules were evaluated at: the request's `at_ms`, or the caller's now
    /// (``EvaluationTime/instantMs``).
    public var evaluatedAtMs: Int64
    /// The instants at which the same facts and filters give this very answer but for
    /// ``evaluatedAtMs``: always holds ``evaluatedAtMs``.
    ///
    /// So a caller may keep the answer and hand it out again until the next instant any
    /// state changes (an expiry, a grace period's end) without judging the facts again. At an
    /// explicit instant the facts that count move with the instant, so the range is that
    /// instant alone.
    public var sameAnswerMs: ClosedRange<Int64>

    public init(active: Bool, entitlements: [Entitlement], evaluatedAtMs: Int64,
                sameAnswerMs: ClosedRange<Int64>? = nil) {
        self.active = active
        self.entitlements = entitlements
        self.evaluatedAtMs = evaluatedAtMs
        self.sameAnswerMs = sameAnswerMs ?? evaluatedAtMs...evaluatedAtMs
    }
}
