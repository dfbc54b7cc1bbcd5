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
    /// A grant given by hand (``Grant``) covers the instant.
    case grantCovers = "grant_covers"
    /// A grant's period ended.
    case grantEnded = "grant_ended"
    /// A grant was revoked at or before the instant.
    case grantRevoked = "grant_revoked"

    /// The state this rule gives the chain.
    public var state: EntitlementState {
        switch self {
        case .periodCovers, .grantCovers: .active
        case .gracePeriod: .gracePeriod
        case .refunded, .grantRevoked: .revoked
        case .billingRetry: .billingRetry
        case .periodEnded, .upgradedAway, .grantEnded: .expired
        }
    }
}

/// Receives the rule that decided a chain's state and the position of the transaction it rests on.
protocol DecisionRecorder {
    mutating func record(_ rule: EntitlementRule, decisive: Int)
}

/// The check's recorder: it needs only the entitlement.
struct IgnoredDecision: DecisionRecorder {
    @inline(__always)
    mutating func record(_ rule: EntitlementRule, decisive: Int) {}
}

/// The explanation's recorder: keeps the decision.
struct RecordedDecision: DecisionRecorder {
    var rule = EntitlementRule.periodCovers
    var decisive = 0

    mutating func record(_ rule: EntitlementRule, decisive: Int) {
        self.rule = rule
        self.decisive = decisive
    }
}
