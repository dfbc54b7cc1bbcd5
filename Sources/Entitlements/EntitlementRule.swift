/// Which of the entitlement rules decided a chain's state (see ``EntitlementRules``).
///
/// The rules pick one of these and the state is read off it, so an explanation built from the
/// rule can never disagree with the state CheckEntitlement answers.
public enum EntitlementRule: String, Sendable, Hashable, CaseIterable {
    /// Rule 1: the decisive period covers the instant (a non-consumable always covers it).
    case periodCovers = "period_covers"
    /// Rule 2: the period ended, and Apple's billing grace period runs past the instant.
    case gracePeriod = "grace_period"
    /// Rule 3: the chain's newest transaction was refunded or revoked.
    case refunded
    /// Rule 4: the period ended and Apple is retrying the charge, without grace.
    case billingRetry = "billing_retry"
    /// Rule 5: the period ended and nothing above holds.
    case periodEnded = "period_ended"
    /// Rule 5, for a chain with no transaction left that can grant: every one was upgraded away.
    case upgradedAway = "upgraded_away"

    /// The state this rule gives the chain.
    public var state: EntitlementState {
        switch self {
        case .periodCovers: .active
        case .gracePeriod: .gracePeriod
        case .refunded: .revoked
        case .billingRetry: .billingRetry
        case .periodEnded, .upgradedAway: .expired
        }
    }
}

/// One chain's verdict: the entitlement, the rule that decided its state, and the position
/// of the transaction that rule rests on.
struct ChainDecision {
    let entitlement: Entitlement
    let rule: EntitlementRule
    /// An index into the transactions the rules were given.
    let decisive: Int
}
