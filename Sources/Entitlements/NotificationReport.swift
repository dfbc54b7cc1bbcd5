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
        /// A refund or revocation of the subject.
        case refund
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
    /// confirms follows from it: a billing recovery is a renewal that was paid late, a
    /// revocation is recorded from the transaction as a refund.
    public init(appleNotificationType: String, subjectTransactionID: String?, kind: HistoryEvent.Kind?) {
        self.appleNotificationType = appleNotificationType
        self.subjectTransactionID = subjectTransactionID
        switch kind {
        case .purchase?: happening = .purchase
        case .renewal?, .billingRecovered?: happening = .renewal
        case .refund?, .revoke?: happening = .refund
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
