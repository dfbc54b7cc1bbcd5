import Entitlements

/// The decoded payload of a StoreKit 2 / V2 signed renewal info (`signedRenewalInfo`).
///
/// Decoding only: the JWS module has already verified the signature. Unlike verifyReceipt's
/// pending_renewal_info this one carries Apple's own `signedDate`, which orders renewal infos
/// so a late, older notification cannot move a chain's state backwards.
public struct JWSRenewalInfoPayload: Sendable, Hashable {
    public var originalTransactionID: String
    public var autoRenewProductID: String?
    public var productID: String?
    /// `autoRenewStatus`: 1 on, 0 off.
    public var autoRenewStatus: Bool
    public var isInBillingRetryPeriod: Bool
    public var gracePeriodExpiresDateMs: Int64?
    public var expirationIntent: Int?
    public var priceIncreaseStatus: Int?
    public var offerType: Int?
    public var recentSubscriptionStartDateMs: Int64?
    public var renewalDateMs: Int64?
    /// The chain's `appAccountToken` (Apple added it to renewal info in 2025): the app's account,
    /// set at purchase or by the Server API's Set App Account Token.
    public var appAccountToken: String?
    public var environment: Environment
    public var signedDateMs: Int64

    /// Decodes the payload JSON (the JWS's middle segment, base64url-decoded).
    ///
    /// A missing `autoRenewStatus` reads as off, as for pending_renewal_info: it grants nothing.
    public static func parse(_ payload: [UInt8]) throws(AppStoreFormatError) -> JWSRenewalInfoPayload {
        let root = try AppleJSONObject.parse(payload)
        let environment = try root.requiredEnvironment("environment")
        return JWSRenewalInfoPayload(
            originalTransactionID: try root.requiredString("originalTransactionId"),
            autoRenewProductID: try root.string("autoRenewProductId"),
            productID: try root.string("productId"),
            autoRenewStatus: try root.bool("autoRenewStatus") ?? false,
            isInBillingRetryPeriod: try root.bool("isInBillingRetryPeriod") ?? false,
            gracePeriodExpiresDateMs: try root.int64("gracePeriodExpiresDate"),
            expirationIntent: try root.int("expirationIntent"),
            priceIncreaseStatus: try root.int("priceIncreaseStatus"),
            offerType: try root.int("offerType"),
            recentSubscriptionStartDateMs: try root.int64("recentSubscriptionStartDate"),
            renewalDateMs: try root.int64("renewalDate"),
            appAccountToken: try root.string("appAccountToken"),
            environment: environment,
            signedDateMs: try root.requiredInt64("signedDate"))
    }

    /// The domain renewal info, dated by Apple's `signedDate`.
    public var renewalInfo: RenewalInfo {
        RenewalInfo(
            originalTransactionID: originalTransactionID,
            autoRenewStatus: autoRenewStatus,
            autoRenewProductID: autoRenewProductID,
            isInBillingRetryPeriod: isInBillingRetryPeriod,
            gracePeriodExpiresDateMs: gracePeriodExpiresDateMs,
            expirationIntent: expirationIntent,
            signedDateMs: signedDateMs)
    }

    /// Fuzzing entry point: decodes arbitrary bytes and discards the result; must never trap.
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        _ = try? parse(Array(bytes)).renewalInfo
    }
}
