/// A state-changing fact in a user's history, as ListHistory shows it.
public struct HistoryEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case purchase, renewal, expired, refund, revoke
        case autoRenewDisabled = "auto_renew_disabled"
        case autoRenewEnabled = "auto_renew_enabled"
        case billingRetry = "billing_retry"
        case gracePeriod = "grace_period"
        case billingRecovered = "billing_recovered"
        case productChange = "product_change"
        case ownershipTransfer = "ownership_transfer"
        /// Another account tried to claim a chain this user owns and was refused (the chain
        /// carries this user's app account token, or the claim offered only a transaction id).
        case claimRefused = "claim_refused"
        /// An operator gave the user an entitlement by hand (``Grant``).
        case grant
        /// An operator ended a grant early.
        case grantRevoked = "grant_revoked"
        /// Apple moved a subscription's renewal date later: an operator's ExtendSubscription, or
        /// Apple's RENEWAL_EXTENDED / RENEWAL_EXTENSION.
        case renewalExtended = "renewal_extended"
        /// Apple asked (CONSUMPTION_REQUEST) how much of a purchase the customer used, because
        /// they asked for a refund; the reason Apple gave is the event's ``HistoryEvent/reason``.
        case consumptionRequest = "consumption_request"
        /// Apple declined a customer's refund request (REFUND_DECLINED).
        case refundDeclined = "refund_declined"
        /// An operator asked Apple again for everything about the chain (Refresh from Apple in the
        /// console), with a reason; what Apple reported that was new is recorded as its own events.
        case refreshed
        /// A notification type we do not map; its raw name is in ``appleNotificationType``.
        case other
    }

    public enum Source: String, Sendable, Hashable, CaseIterable {
        case receipt
        case notificationV1 = "notification_v1"
        case notificationV2 = "notification_v2"
        /// A person acting through an operator RPC or the console; ``HistoryEvent/actor`` names them.
        case `operator`
    }

    /// Stable id; unique per source event, so replaying the same source adds nothing.
    public var eventID: String
    public var kind: Kind
    public var occurredAtMs: Int64
    public var productID: String
    public var transactionID: String
    public var originalTransactionID: String
    public var expiresAtMs: Int64
    public var environment: Environment
    public var source: Source
    public var appleNotificationType: String
    /// Who caused an operator's event (the token's name); empty for Apple's events.
    public var actor: String
    /// Why, in the operator's words (or Apple's reason, for a consumption request); empty for
    /// Apple's other events.
    public var reason: String

    public init(
        eventID: String, kind: Kind, occurredAtMs: Int64, productID: String,
        transactionID: String, originalTransactionID: String, expiresAtMs: Int64 = 0,
        environment: Environment, source: Source, appleNotificationType: String = "",
        actor: String = "", reason: String = ""
    ) {
        self.eventID = eventID
        self.kind = kind
        self.occurredAtMs = occurredAtMs
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.expiresAtMs = expiresAtMs
        self.environment = environment
        self.source = source
        self.appleNotificationType = appleNotificationType
        self.actor = actor
        self.reason = reason
    }
}

extension HistoryEvent {
    /// The other account an ownership event names: the user a chain moved to
    /// (``Kind/ownershipTransfer``) or the one whose claim was refused (``Kind/claimRefused``);
    /// nil for every other event. Read back from the id, which is where the store keeps it
    /// (`<kind>:<original transaction id>:<user id>:<ms>`; the ids around it are digits, so a
    /// user id holding colons still reads back whole).
    public var counterpartUserID: String? {
        guard kind == .ownershipTransfer || kind == .claimRefused else { return nil }
        let prefix = kind.rawValue + ":" + originalTransactionID + ":"
        guard eventID.hasPrefix(prefix), let lastColon = eventID.lastIndex(of: ":") else { return nil }
        let start = eventID.index(eventID.startIndex, offsetBy: prefix.count)
        guard start <= lastColon else { return nil }
        return String(eventID[start..<lastColon])
    }
}
