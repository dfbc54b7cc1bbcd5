import Entitlements

/// An App Store Server Notification, version 1 (unsigned JSON), reduced to stored facts.
///
/// V1 is unsigned: ``password`` (the shared secret) is its only authenticity check, which the
/// caller makes in constant time (JWS's `SecretDigest`) before trusting anything else here. The
/// `unified_receipt` is merged exactly like a verifyReceipt response (``ReceiptUnion``).
public struct NotificationV1: Sendable, Hashable {
    /// Apple's raw `notification_type`; unknown types are kept, never rejected (Apple adds them).
    public var notificationType: String
    public var password: String?
    /// `bid`; the caller compares it with `--bundle-id`.
    public var bundleID: String?
    /// `bvrs`.
    public var bundleVersion: String?
    /// `environment` ("Sandbox" or "PROD"), else `unified_receipt.environment`.
    public var environment: Environment
    public var originalTransactionID: String?
    /// Top-level `auto_renew_status` ("true"/"false" in V1, unlike pending_renewal_info's 1/0).
    public var autoRenewStatus: Bool?
    public var autoRenewProductID: String?
    /// Top-level `cancellation_date_ms`, sent with CANCEL (a refund or an upgrade).
    public var cancellationDateMs: Int64?
    /// Union of `unified_receipt.latest_receipt_info` and the deprecated top-level receipt
    /// infos, by `transaction_id`, by chain, oldest first.
    public var transactions: [Transaction]
    /// One per chain; `signedDateMs` is when we received the notification.
    public var renewalInfos: [RenewalInfo]
    public var latestReceipt: String?
    /// `unified_receipt.status`.
    public var unifiedReceiptStatus: Int?

    public init(
        notificationType: String, password: String? = nil, bundleID: String? = nil,
        bundleVersion: String? = nil, environment: Environment,
        originalTransactionID: String? = nil, autoRenewStatus: Bool? = nil,
        autoRenewProductID: String? = nil, cancellationDateMs: Int64? = nil,
        transactions: [Transaction] = [], renewalInfos: [RenewalInfo] = [],
        latestReceipt: String? = nil, unifiedReceiptStatus: Int? = nil
    ) {
        self.notificationType = notificationType
        self.password = password
        self.bundleID = bundleID
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.originalTransactionID = originalTransactionID
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.cancellationDateMs = cancellationDateMs
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.latestReceipt = latestReceipt
        self.unifiedReceiptStatus = unifiedReceiptStatus
    }

    /// Parses a V1 body; `receivedAtMs` becomes every ``RenewalInfo/signedDateMs``.
    public static func parse(
        _ body: [UInt8], receivedAtMs: Int64
    ) throws(AppStoreFormatError) -> NotificationV1 {
        try decode(AppleJSONObject.parse(body), receivedAtMs: receivedAtMs)
    }

    /// Decodes an already parsed body (``NotificationBody`` parses each webhook body once).
    static func decode(_ root: AppleJSONObject, receivedAtMs: Int64) throws(AppStoreFormatError) -> NotificationV1 {
        let notificationType = try root.requiredString("notification_type")
        let unified = try root.object("unified_receipt")
        var environment = try root.environment("environment")
        if environment == nil { environment = try unified?.environment("environment") }
        guard let environment else { throw root.missing("environment") }

        var union = ReceiptUnion()
        // Before unified_receipt (2020) V1 carried these at the top level; unified wins.
        try union.add(try root.objects("latest_expired_receipt_info"), environment: environment)
        try union.add(try root.objects("latest_receipt_info"), environment: environment)
        if let unified {
            try union.add(try unified.objects("latest_receipt_info"), environment: environment)
            try union.addPendingRenewals(
                try unified.objects("pending_renewal_info"), observedAtMs: receivedAtMs)
        }

        return NotificationV1(
            notificationType: notificationType,
            password: try root.string("password"),
            bundleID: try root.string("bid"),
            bundleVersion: try root.string("bvrs"),
            environment: environment,
            originalTransactionID: try root.string("original_transaction_id"),
            autoRenewStatus: try root.bool("auto_renew_status"),
            autoRenewProductID: try root.string("auto_renew_product_id"),
            cancellationDateMs: try root.int64("cancellation_date_ms"),
            transactions: union.sortedTransactions,
            renewalInfos: union.sortedRenewalInfos,
            latestReceipt: try unified?.string("latest_receipt"),
            unifiedReceiptStatus: try unified?.int("status"))
    }

    /// Fuzzing entry point: parses arbitrary bytes and discards the result; must never trap.
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        guard let notification = try? parse(Array(bytes), receivedAtMs: 0) else { return }
        _ = notification.eventKind
    }
}
