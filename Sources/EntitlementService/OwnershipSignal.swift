import EntitlementPorts

/// What the service tells its observer (the metrics) about who owns what: a purchase moving
/// between accounts many times, or claims being refused, is how shared or stolen purchases show.
public enum OwnershipSignal: Sendable, Equatable {
    /// Chains moved from one account to another (a claim under the transfer policy, or a
    /// notification whose token names another account).
    case transferred(count: Int)
    /// A claim refused: by ``ClaimRefusalReason``, or by the reject transfer policy (nil).
    case refused(ClaimRefusalReason?)

    /// The `reason` label of the refused-claims metric.
    public var refusalLabel: String? {
        guard case let .refused(reason) = self else { return nil }
        return reason?.rawValue ?? "transfer_policy"
    }
}

public typealias OwnershipObserver = @Sendable (OwnershipSignal) -> Void
