import Entitlements

extension Transaction {
    /// Maps one verifyReceipt / V1 receipt info entry (`in_app`, `latest_receipt_info`).
    ///
    /// Only the `*_ms` dates are read: the plain and `_pst` strings are for humans. The
    /// environment is the response's; Apple does not repeat it per entry. An entry without
    /// `original_transaction_id` is the first of its chain (Apple omits nothing here in
    /// practice, but a consumable's chain is itself).
    init(receiptInfo info: AppleJSONObject, environment: Environment) throws(AppStoreFormatError) {
        let transactionID = try info.requiredString("transaction_id")
        self.init(
            transactionID: transactionID,
            originalTransactionID: try info.string("original_transaction_id") ?? transactionID,
            productID: try info.requiredString("product_id"),
            purchaseDateMs: try info.requiredInt64("purchase_date_ms"),
            originalPurchaseDateMs: try info.int64("original_purchase_date_ms"),
            expiresDateMs: try info.int64("expires_date_ms"),
            cancellationDateMs: try info.int64("cancellation_date_ms"),
            isTrialPeriod: try info.bool("is_trial_period") ?? false,
            isInIntroOfferPeriod: try info.bool("is_in_intro_offer_period") ?? false,
            isUpgraded: try info.bool("is_upgraded") ?? false,
            subscriptionGroupIdentifier: try info.string("subscription_group_identifier"),
            webOrderLineItemID: try info.string("web_order_line_item_id"),
            inAppOwnershipType: try info.string("in_app_ownership_type"),
            appAccountToken: try info.string("app_account_token"),
            environment: environment)
        // Checked, not stored: a quantity that is not an integer means the entry is not what
        // we think it is.
        _ = try info.int64("quantity")
    }
}
