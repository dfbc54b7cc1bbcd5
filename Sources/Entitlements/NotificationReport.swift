/// The App Store notification that reported or confirmed facts, as history names it.
///
/// Support staff read `apple_notification_type` to see which of Apple's messages told us
/// something, so every event a notification reported or confirmed carries its type. The
/// subject and its happening say which existing event the notification confirms: a DID_RENEW
/// confirms the renewal of its transaction, not the purchase Apple repeats in a V1 unified
/// receipt, and a DID_CHANGE_RENEWAL_STATUS confirms no purchase, renewal or refund at all.
public struct NotificationReport: Sendable, Hashable {
    /// The transaction-derived happenings a notification can confirm.
    public enum Happening: Sendable, Hashable {
        /// A purchase (V1 INITIAL_BUY, V2 SUBSCRIBED with INITIAL_BUY or RESUBSCRIBE): the
        /// subject is a PURCHASE even when it is not its chain's first transaction, as a
        /// resubscription after a lapse is a new purchase in the same chain.
        case purchase
        /// A renewal, including one that recovered from a billing failure.
        case renewal
        /// A refund of the subject.
        case refund
        /// A Family Sharing revocation of the subject (REVOKE): its cancellation is a REVOKE.
        case revoke
        /// The subject was replaced by an upgrade (V1 CANCEL of an `is_upgraded` transaction):
        /// its cancellation date is the upgrade, a PRODUCT_CHANGE.
        case upgraded
        /// The subject is the new plan of an upgrade (V2 DID_CHANGE_RENEWAL_PREF/UPGRADE): the
        /// PRODUCT_CHANGE is the replaced plan's (``HistoryDerivation/upgrade(to:chain:source:notification:)``).
        case upgrade
    }

    /// V1 `notification_type`; V2 `notificationType`, or `notificationType/subtype` when a
    /// subtype is present (e.g. `DID_RENEW/BILLING_RECOVERY`).
    public var appleNotificationType: String
    /// The transaction the notification is about; `nil` when it carries none.
    public var subjectTransactionID: String?
    /// What the notification says happened to the subject; `nil` when it is about something
    /// else (auto-renew, billing retry, an unknown type), which it records as its own event.
    public var happening: Happening?

    /// `kind` is the event the notification maps to (``HistoryEvent/Kind``); the happening it
    /// confirms follows from it: a billing recovery is a renewal that was paid late. A product
    /// change is an upgrade only where Apple's message says so (`productChange`: ``upgraded``
    /// for a V1 CANCEL, ``upgrade`` for V2 UPGRADE); a downgrade or crossgrade at the next
    /// renewal changes no transaction yet and is its own event.
    public init(appleNotificationType: String, subjectTransactionID: String?, kind: HistoryEvent.Kind?,
                productChange: Happening? = nil) {
        self.appleNotificationType = appleNotificationType
        self.subjectTransactionID = subjectTransactionID
        switch kind {
        case .purchase?: happening = .purchase
        case .renewal?, .billingRecovered?: happening = .renewal
        case .refund?: happening = .refund
        case .revoke?: happening = .revoke
        case .productChange?: happening = productChange
        default: happening = nil
        }
    }

    /// V2's name for history: the type, with the subtype after a slash when there is one.
    public static func appleName(notificationType: String, subtype: String?) -> String {
        guard let subtype, !subtype.isEmpty else { return notificationType }
        return notificationType + "/" + subtype
    }

    /// What the notification says happened to `transactionID`, if it is the subject.
    func happening(to transactionID: String) -> Happening? {
        subjectTransactionID == transactionID ? happening : nil
    }
}
