/// The one-sentence `reason` of an ``EntitlementExplanation``: the state, then the rule that
/// decided it in words, naming the transaction it rests on and the instants that matter.
///
/// Built only from the explanation's own values (the rule the rules chose, the entitlement they
/// answered), never by judging the facts again, so it cannot contradict the state.
enum ExplanationSentence {
    static func reason(for explanation: EntitlementExplanation) -> String {
        let entitlement = explanation.entitlement
        let id = explanation.decisiveTransactionID
        let decisive = explanation.decisiveTransaction
        let state = name(of: entitlement.state)
        let expires = UTCText.iso8601(milliseconds: entitlement.expiresAtMs)
        let bought = UTCText.iso8601(milliseconds: decisive?.purchaseDateMs ?? entitlement.purchasedAtMs)
        switch explanation.rule {
        case .periodCovers:
            switch entitlement.productType {
            case .nonConsumable, .consumable:
                return
                    "\(state): non-consumable purchase \(id), bought at \(bought), never expires and was not refunded"
            case .nonRenewing:
                return "\(state): non-renewing purchase \(id), bought at \(bought), runs until \(expires)"
                    + " (\(nonRenewingEnd(explanation)))"
            case .autoRenewable, .promotional:
                return "\(state): the period of transaction \(id)\(offer(entitlement)) runs until \(expires)"
            }
        case .gracePeriod:
            let grace = UTCText.iso8601(milliseconds: entitlement.gracePeriodExpiresAtMs)
            return "\(state): the period of transaction \(id) ended at \(expires), and Apple's grace period"
                + " runs until \(grace)"
        case .refunded:
            let at = decisive?.cancellationDateMs.map { " at " + UTCText.iso8601(milliseconds: $0) } ?? ""
            if decisive?.isFamilyShared == true {
                return "\(state): transaction \(id), the chain's newest, was revoked\(at)"
                    + " (Family Sharing access withdrawn)"
            }
            return "\(state): transaction \(id), the chain's newest, was refunded\(at), and Apple treats a"
                + " refunded purchase as never made"
        case .billingRetry:
            let graceEnded = entitlement.gracePeriodExpiresAtMs > 0
                ? "Apple's grace period ended at \(UTCText.iso8601(milliseconds: entitlement.gracePeriodExpiresAtMs)),"
                    + " and Apple is still retrying the charge"
                : "Apple is retrying the charge without a grace period"
            return "\(state): the period of transaction \(id) ended at \(expires), and \(graceEnded)"
        case .periodEnded:
            if entitlement.productType == .nonRenewing {
                if explanation.catalogDurationMs == nil, decisive?.expiresDateMs == nil {
                    return "\(state): non-renewing purchase \(id) has no duration in the catalog, so it grants"
                        + " nothing after its purchase at \(bought)"
                }
                return "\(state): non-renewing purchase \(id), bought at \(bought), ended at \(expires)"
                    + " (\(nonRenewingEnd(explanation)))"
            }
            if entitlement.expiresAtMs == 0 {
                return "\(state): transaction \(id) carries no expiry, so it cannot grant a subscription period"
            }
            return "\(state): the period of transaction \(id) ended at \(expires), and no later transaction"
                + " renewed it"
        case .grantCovers:
            return "\(state): active because of grant \(id) by \(grantBy(explanation))"
        case .grantEnded:
            return "\(state): grant \(id) by \(grantBy(explanation)) ended at \(expires)"
        case .grantRevoked:
            let grant = explanation.grant
            let at = grant?.revokedAtMs.map { " at " + UTCText.iso8601(milliseconds: $0) } ?? ""
            return "\(state): grant \(id) by \(grantBy(explanation)) was revoked\(at)"
                + " by \(grant?.revokedBy ?? ""): \(grant?.revocationReason ?? "")"
        case .upgradedAway:
            let at = decisive?.cancellationDateMs.map { " at " + UTCText.iso8601(milliseconds: $0) } ?? ""
            return "\(state): transaction \(id) was upgraded to another plan\(at), so this chain no longer"
                + " grants access"
        }
    }

    /// "alice: <reason>": who gave the grant and why, as they wrote it.
    private static func grantBy(_ explanation: EntitlementExplanation) -> String {
        "\(explanation.grant?.actor ?? ""): \(explanation.grant?.reason ?? "")"
    }

    /// The proto enum's name, as support engineers see it in every client.
    static func name(of state: EntitlementState) -> String {
        switch state {
        case .active: "ACTIVE"
        case .gracePeriod: "GRACE_PERIOD"
        case .billingRetry: "BILLING_RETRY"
        case .expired: "EXPIRED"
        case .revoked: "REVOKED"
        }
    }

    private static func offer(_ entitlement: Entitlement) -> String {
        if entitlement.isTrialPeriod { return " (a free trial)" }
        if entitlement.isInIntroOfferPeriod { return " (an introductory offer)" }
        return ""
    }

    /// Where a non-renewing purchase's end comes from (``ChainSnapshot/nonRenewingExpiry(of:entry:)``).
    private static func nonRenewingEnd(_ explanation: EntitlementExplanation) -> String {
        if let duration = explanation.catalogDurationMs {
            return "the catalog's duration of \(UTCText.duration(milliseconds: duration))"
        }
        if explanation.decisiveTransaction?.expiresDateMs != nil {
            return "Apple's expiry; the catalog gives no duration"
        }
        return "the catalog gives no duration, so it ends at its purchase"
    }
}
