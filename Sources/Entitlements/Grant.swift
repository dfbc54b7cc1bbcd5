/// An entitlement given to a user by hand (a promotional grant), with no Apple product behind it.
///
/// Kept as a fact beside the user's transactions (``UserFacts/grants``) so the same rules judge
/// both and a grant and an Apple subscription for one entitlement grant access if either does.
/// A revocation is a date on the grant, not a deletion: a check at an earlier instant still
/// sees the grant, as it saw it then.
public struct Grant: Sendable, Hashable {
    /// The server's id, `g` and hex digits; never an Apple id.
    public var grantID: String
    public var entitlementID: String
    public var startsAtMs: Int64
    public var expiresAtMs: Int64
    /// Who granted it (the caller's token name) and why, as history shows them.
    public var actor: String
    public var reason: String
    /// When it was revoked, by whom and why; nil and empty while it stands.
    public var revokedAtMs: Int64?
    public var revokedBy: String
    public var revocationReason: String

    public init(grantID: String, entitlementID: String, startsAtMs: Int64, expiresAtMs: Int64,
                actor: String, reason: String, revokedAtMs: Int64? = nil, revokedBy: String = "",
                revocationReason: String = "") {
        self.grantID = grantID
        self.entitlementID = entitlementID
        self.startsAtMs = startsAtMs
        self.expiresAtMs = expiresAtMs
        self.actor = actor
        self.reason = reason
        self.revokedAtMs = revokedAtMs
        self.revokedBy = revokedBy
        self.revocationReason = revocationReason
    }

    /// The chain id a grant's entitlement is kept and diffed under (change log heads, history):
    /// unique per grant and never an Apple id (those are digits). The API shows an empty
    /// `original_transaction_id` and the grant id in `grant_id` instead.
    public var chainID: String { Grant.chainPrefix + grantID }

    static let chainPrefix = "grant:"

    /// The longest grant accepted: ten years, leap days included.
    public static let maximumDurationMs: Int64 = 3653 * 86_400_000

    /// The grant as CheckEntitlement answers it at `time`; nil before it starts (it has not
    /// begun to exist for the rules yet). Revoked counts only once the revocation happened by
    /// `time`, so a revocation is never retroactive.
    public func entitlement(at time: EvaluationTime) -> Entitlement? {
        guard startsAtMs <= time.instantMs else { return nil }
        let state: EntitlementState
        if let revokedAtMs, revokedAtMs <= time.factsUpToMs {
            state = .revoked
        } else if time.instantMs >= expiresAtMs {
            state = .expired
        } else {
            state = .active
        }
        return Entitlement(
            productID: "", originalTransactionID: chainID, state: state, purchasedAtMs: startsAtMs,
            expiresAtMs: expiresAtMs, productType: .promotional, environment: .production,
            latestTransactionID: "", entitlementID: entitlementID)
    }
}

extension Entitlement {
    /// The grant this entitlement comes from; empty for Apple's chains.
    public var grantID: String {
        originalTransactionID.hasPrefix(Grant.chainPrefix)
            ? String(originalTransactionID.dropFirst(Grant.chainPrefix.count)) : ""
    }
}

extension Grant {
    /// The GRANT event history records when the grant is given at `recordedAtMs`: its product
    /// column holds the entitlement (so a product-filtered history finds it) and its transaction
    /// column the grant id, as a grant has neither.
    public func grantedEvent(recordedAtMs: Int64) -> HistoryEvent {
        HistoryEvent(
            eventID: "grant:" + grantID, kind: .grant, occurredAtMs: recordedAtMs, productID: entitlementID,
            transactionID: grantID, originalTransactionID: chainID, expiresAtMs: expiresAtMs,
            environment: .production, source: .operator, actor: actor, reason: reason)
    }

    /// The GRANT_REVOKED event of this grant once revoked; nil while it stands.
    public var revokedEvent: HistoryEvent? {
        guard let revokedAtMs else { return nil }
        return HistoryEvent(
            eventID: "grant_revoked:" + grantID, kind: .grantRevoked, occurredAtMs: revokedAtMs,
            productID: entitlementID, transactionID: grantID, originalTransactionID: chainID,
            expiresAtMs: expiresAtMs, environment: .production, source: .operator, actor: revokedBy,
            reason: revocationReason)
    }

    /// Why a grant request cannot be honoured, in words the caller can act on; nil when it can.
    /// `startsAtMs` is already resolved (0 became now).
    public static func refusal(entitlementID: String, reason: String, startsAtMs: Int64, expiresAtMs: Int64)
        -> String? {
        if entitlementID.isEmpty { return "entitlement_id is required: name the entitlement to grant" }
        if reason.allSatisfy(\.isWhitespace) {
            return "reason is required: say why the grant is given (history shows it)"
        }
        if expiresAtMs <= startsAtMs {
            return "expires_at_ms (\(expiresAtMs)) must be after the start (\(startsAtMs)): give a later expiry"
        }
        if expiresAtMs - startsAtMs > maximumDurationMs {
            return "a grant may last at most 10 years: give an expires_at_ms within 10 years of its start"
        }
        return nil
    }
}
