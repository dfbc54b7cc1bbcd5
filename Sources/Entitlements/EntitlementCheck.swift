/// The answer to CheckEntitlement: may the user use it, and the entitlements that say so.
public struct EntitlementCheck: Sendable, Hashable {
    /// True when any of ``entitlements`` grants access (ACTIVE or GRACE_PERIOD).
    public var active: Bool
    /// The entitlements matching the request, in ``EntitlementRules`` list order.
    public var entitlements: [Entitlement]
    /// The instant the rules were evaluated at: the request's `at_ms`, or the caller's now
    /// (``EvaluationTime/instantMs``).
    public var evaluatedAtMs: Int64

    public init(active: Bool, entitlements: [Entitlement], evaluatedAtMs: Int64) {
        self.active = active
        self.entitlements = entitlements
        self.evaluatedAtMs = evaluatedAtMs
    }
}
