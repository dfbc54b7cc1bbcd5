import Entitlements

/// What a V2 notification asks of the service, from its type and subtype alone.
///
/// A pure table so the mapping is reviewable in one place; whatever the action, the caller
/// still stores the notification's signed transaction and renewal info facts (except for
/// ``ignore``), so the entitlement rules see them whatever the event says.
public enum NotificationV2Action: Sendable, Hashable {
    /// Record an event of this kind; `.other` means "store the raw type name" (an unmapped
    /// or future type, accepted, never rejected).
    case record(HistoryEvent.Kind)
    /// REFUND_REVERSED: Apple reversed a refund; the caller clears the transaction's
    /// cancellation, which only this action may do (a fact otherwise never moves backwards).
    case reverseRefund
    /// TEST: Apple's connectivity check; nothing is stored.
    case ignore

    /// Maps Apple's `notificationType` and `subtype`.
    ///
    /// SUBSCRIBED (INITIAL_BUY or RESUBSCRIBE) is a purchase: a resubscription after a lapse
    /// is a new purchase in the same chain, so its transaction's history event is a PURCHASE
    /// although it is not the chain's first (see ``NotificationReport``).
    /// DID_RENEW/BILLING_RECOVERY is a recovery, DID_FAIL_TO_RENEW/GRACE_PERIOD opens a grace
    /// period, DID_CHANGE_RENEWAL_STATUS reads its direction from the subtype (`.other`
    /// without one), and GRACE_PERIOD_EXPIRED is billing retry: access ends, Apple retries on.
    public init(notificationType: String, subtype: String?) {
        switch (notificationType, subtype) {
        case ("SUBSCRIBED", _): self = .record(.purchase)
        case ("DID_RENEW", "BILLING_RECOVERY"): self = .record(.billingRecovered)
        case ("DID_RENEW", _): self = .record(.renewal)
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): self = .record(.gracePeriod)
        case ("DID_FAIL_TO_RENEW", _), ("GRACE_PERIOD_EXPIRED", _): self = .record(.billingRetry)
        case ("EXPIRED", _): self = .record(.expired)
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): self = .record(.autoRenewEnabled)
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"): self = .record(.autoRenewDisabled)
        case ("DID_CHANGE_RENEWAL_PREF", _): self = .record(.productChange)
        case ("REFUND", _): self = .record(.refund)
        case ("REVOKE", _): self = .record(.revoke)
        case ("REFUND_REVERSED", _): self = .reverseRefund
        case ("REFUND_DECLINED", _): self = .record(.refundDeclined)
        case ("CONSUMPTION_REQUEST", _): self = .record(.consumptionRequest)
        case ("RENEWAL_EXTENDED", _), ("RENEWAL_EXTENSION", _): self = .record(.renewalExtended)
        case ("TEST", _): self = .ignore
        default: self = .record(.other)
        }
    }
}
