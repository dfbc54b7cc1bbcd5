/// One entitlement whose CheckEntitlement answer changed state: the entry a change log records.
public struct EntitlementTransition: Sendable, Hashable {
    /// The entitlement as CheckEntitlement answers it now (``EntitlementTransitions/withdrawn(_:)``
    /// when the user no longer holds the chain at all).
    public var entitlement: Entitlement
    /// The state last announced for this chain; `nil` when the chain is new to the user.
    public var previousState: EntitlementState?
}

/// What counts as a change of a user's entitlements, as pure rules.
///
/// A change is a chain (one subscription chain or one purchase, keyed by original transaction
/// id) whose CheckEntitlement `state` differs between two answers; `active` follows from the
/// state, so it cannot differ alone. A renewal that keeps the chain ACTIVE, a toggle of
/// auto-renew or a product change inside the chain change fields but not the state: history
/// shows them, the change log does not, so a consumer sees exactly the moments access moved.
///
/// "Before" is what was last announced for the chain, not a re-evaluation of older facts: each
/// change's previous state is then the previous change's state, so a consumer can check the log
/// it follows for gaps, and a time-driven change that is due is never folded into the fact
/// that arrives after it.
public enum EntitlementTransitions {
    /// The chains whose state differs from `before` to `after`, ordered by original
    /// transaction id (byte order) so every backend logs one commit's changes alike.
    ///
    /// A chain only in `after` is a first appearance (previous state `nil`), whatever its state:
    /// a receipt that reveals an already expired subscription still tells the consumer the
    /// chain exists. A chain only in `before` left the user (ownership moved to another Apple
    /// ID's account): it is reported as ``withdrawn(_:)``, i.e. REVOKED, unless it was already
    /// REVOKED. The rules never drop a chain otherwise, since evaluated at now every stored fact
    /// counts.
    public static func between(before: [Entitlement], after: [Entitlement]) -> [EntitlementTransition] {
        var transitions: [EntitlementTransition] = []
        for entitlement in after {
            let previous = before.first { $0.originalTransactionID == entitlement.originalTransactionID }
            if previous?.state != entitlement.state {
                transitions.append(EntitlementTransition(entitlement: entitlement, previousState: previous?.state))
            }
        }
        for previous in before
        where previous.state != .revoked
            && !after.contains(where: { $0.originalTransactionID == previous.originalTransactionID })
        {
            transitions.append(EntitlementTransition(entitlement: withdrawn(previous), previousState: previous.state))
        }
        transitions.sort {
            $0.entitlement.originalTransactionID.utf8.lexicographicallyPrecedes(
                $1.entitlement.originalTransactionID.utf8)
        }
        return transitions
    }

    /// How a chain the user lost to another user is reported to the one who lost it.
    ///
    /// CheckEntitlement simply stops listing the chain; a change has to name a state, and
    /// REVOKED (access taken away, not run out) is the one a consumer must act on, as for a
    /// refund. Every field but the state stays as last announced, so the consumer knows which
    /// product and period it was; `will_auto_renew` is false because this user's plan will not.
    public static func withdrawn(_ entitlement: Entitlement) -> Entitlement {
        var withdrawn = entitlement
        withdrawn.state = .revoked
        withdrawn.willAutoRenew = false
        return withdrawn
    }

    /// The next instant after `instantMs` at which time alone can change `entitlement`'s state,
    /// or `nil` when only a new fact can.
    ///
    /// The rules compare the instant with two dates only: the period's expiry (rule 1) and
    /// Apple's grace period end (rule 2), each "still running" while strictly after the instant,
    /// so the state can move exactly at one of them. The earlier one still ahead is due; the
    /// caller re-evaluates there and asks again. (A chain the user lost is never due: its
    /// state is no longer this user's, so callers do not ask for it.)
    public static func nextDueInstant(of entitlement: Entitlement, after instantMs: Int64) -> Int64? {
        var due: Int64?
        for candidate in [entitlement.expiresAtMs, entitlement.gracePeriodExpiresAtMs]
        where candidate > instantMs && candidate > 0 {
            due = min(due ?? candidate, candidate)
        }
        return due
    }
}
