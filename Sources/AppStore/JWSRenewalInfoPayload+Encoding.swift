import Entitlements

extension JWSRenewalInfoPayload {
    /// A StoreKit 2 renewal payload for a domain renewal info of a chain whose current product
    /// is `productID` and whose app account token is `appAccountToken`, signed (by the caller)
    /// at the info's own ``RenewalInfo/signedDateMs``.
    public init(
        renewalInfo: RenewalInfo, productID: String?, environment: Environment,
        recentSubscriptionStartDateMs: Int64? = nil, renewalDateMs: Int64? = nil, appAccountToken: String? = nil
    ) {
        self.init(
            originalTransactionID: renewalInfo.originalTransactionID,
            autoRenewProductID: renewalInfo.autoRenewProductID,
            productID: productID,
            autoRenewStatus: renewalInfo.autoRenewStatus,
            isInBillingRetryPeriod: renewalInfo.isInBillingRetryPeriod,
            gracePeriodExpiresDateMs: renewalInfo.gracePeriodExpiresDateMs,
            expirationIntent: renewalInfo.expirationIntent,
            priceIncreaseStatus: nil,
            offerType: nil,
            recentSubscriptionStartDateMs: recentSubscriptionStartDateMs,
            renewalDateMs: renewalDateMs,
            appAccountToken: appAccountToken,
            environment: environment,
            signedDateMs: renewalInfo.signedDateMs)
    }

    /// The payload JSON Apple signs, what ``parse(_:)`` reads back (`autoRenewStatus` 0/1).
    public func jsonBody() -> [UInt8] {
        var root = AppleJSONWriter()
        root.string("originalTransactionId", originalTransactionID)
        root.string("autoRenewProductId", autoRenewProductID)
        root.string("productId", productID)
        root.number("autoRenewStatus", autoRenewStatus ? 1 : 0)
        root.bool("isInBillingRetryPeriod", isInBillingRetryPeriod)
        root.number("gracePeriodExpiresDate", gracePeriodExpiresDateMs)
        root.number("expirationIntent", expirationIntent)
        root.number("priceIncreaseStatus", priceIncreaseStatus)
        root.number("offerType", offerType)
        root.number("signedDate", signedDateMs)
        root.string("environment", environment.appleName)
        root.number("recentSubscriptionStartDate", recentSubscriptionStartDateMs)
        root.number("renewalDate", renewalDateMs)
        root.string("appAccountToken", appAccountToken)
        return root.bytes
    }
}
