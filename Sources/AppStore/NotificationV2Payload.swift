import Entitlements

/// The decoded `signedPayload` of an App Store Server Notification, version 2.
///
/// Decoding only: the JWS module has verified the outer token and hands over its payload
/// bytes. The nested `signedTransactionInfo` / `signedRenewalInfo` stay compact JWS strings
/// here: each must be verified on its own before ``JWSTransactionPayload`` or
/// ``JWSRenewalInfoPayload`` decodes it.
public struct NotificationV2Payload: Sendable, Hashable {
    /// `data`: the app and the signed transaction and renewal the notification is about.
    public struct Data: Sendable, Hashable {
        public var environment: Environment
        public var bundleID: String?
        /// `appAppleId`; absent in sandbox. Kept as text like every Apple id.
        public var appAppleID: String?
        public var bundleVersion: String?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        /// CONSUMPTION_REQUEST's `consumptionRequestReason` (UNINTENDED_PURCHASE,
        /// FULFILLMENT_ISSUE, UNSATISFIED_WITH_PURCHASE, LEGAL, OTHER): why the customer asked
        /// for a refund, as Apple names it.
        public var consumptionRequestReason: String? = nil
    }

    /// Apple's raw type; unknown types are kept, never rejected (Apple adds them yearly).
    public var notificationType: String
    public var subtype: String?
    /// The idempotency key: Apple redelivers the same UUID.
    public var notificationUUID: String
    public var version: String?
    /// Apple's signedDate; 0 for older V2 payloads that carry none (the verifier then uses the
    /// nested transaction's signedDate).
    public var signedDateMs: Int64
    /// `nil` for notifications that carry `summary`, `externalPurchaseToken` or `appData`.
    public var data: Data?
    /// A mass renewal-date extension summary (RENEWAL_EXTENSION / SUMMARY) is present.
    public var hasSummary: Bool

    /// Decodes the payload JSON (the JWS's middle segment, base64url-decoded).
    public static func parse(_ payload: [UInt8]) throws(AppStoreFormatError) -> NotificationV2Payload {
        let root = try AppleJSONObject.parse(payload)
        var data: Data?
        if let object = try root.object("data") {
            let environment = try object.requiredEnvironment("environment")
            data = Data(
                environment: environment,
                bundleID: try object.string("bundleId"),
                appAppleID: try object.string("appAppleId"),
                bundleVersion: try object.string("bundleVersion"),
                signedTransactionInfo: try object.string("signedTransactionInfo"),
                signedRenewalInfo: try object.string("signedRenewalInfo"),
                status: try object.int("status"),
                consumptionRequestReason: try object.string("consumptionRequestReason"))
        }
        if root.has("summary"), try root.object("summary") == nil {
            throw root.invalid("summary", expected: "an object")
        }
        return NotificationV2Payload(
            notificationType: try root.requiredString("notificationType"),
            subtype: try root.string("subtype"),
            notificationUUID: try root.requiredString("notificationUUID"),
            version: try root.string("version"),
            signedDateMs: try root.int64("signedDate") ?? 0,
            data: data,
            hasSummary: root.has("summary"))
    }

    /// The name history shows (`apple_notification_type`): `notificationType`, or
    /// `notificationType/subtype` when Apple sent a subtype, e.g. `DID_RENEW/BILLING_RECOVERY`.
    public var appleNotificationType: String {
        NotificationReport.appleName(notificationType: notificationType, subtype: subtype)
    }

    /// How history names this notification and what it says happened to `subject`: an
    /// UPGRADE's subject is the new plan, whose product change is recorded against the plan it
    /// replaced; a DOWNGRADE (or a change back) takes effect later and is its own event.
    public func historyReport(subject: Transaction?) -> NotificationReport {
        var kind: HistoryEvent.Kind?
        if case .record(let recorded) = action { kind = recorded }
        return NotificationReport(appleNotificationType: appleNotificationType,
                                  subjectTransactionID: subject?.transactionID, kind: kind,
                                  productChange: subtype == "UPGRADE" ? .upgrade : nil)
    }

    /// What the service does with this notification; see ``NotificationV2Action``.
    public var action: NotificationV2Action {
        NotificationV2Action(notificationType: notificationType, subtype: subtype)
    }

    /// Fuzzing entry point: decodes arbitrary bytes and discards the result; must never trap.
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        _ = try? parse(Array(bytes)).action
    }
}
