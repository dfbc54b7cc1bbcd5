import Entitlements

extension RenewalInfo {
    /// Maps one `pending_renewal_info` entry; `observedAtMs` stands in for Apple's signedDate,
    /// since this source is unsigned.
    ///
    /// A missing `auto_renew_status` reads as off: Apple always sends it, and reading "will not
    /// renew" grants nothing (access rests on expiry dates), whereas rejecting the whole
    /// receipt would lose every transaction in it.
    init(pendingRenewal info: AppleJSONObject, observedAtMs: Int64) throws(AppStoreFormatError) {
        self.init(
            originalTransactionID: try info.requiredString("original_transaction_id"),
            autoRenewStatus: try info.bool("auto_renew_status") ?? false,
            autoRenewProductID: try info.string("auto_renew_product_id"),
            isInBillingRetryPeriod: try info.bool("is_in_billing_retry_period") ?? false,
            gracePeriodExpiresDateMs: try info.int64("grace_period_expires_date_ms"),
            expirationIntent: try info.int("expiration_intent"),
            signedDateMs: observedAtMs)
    }
}
