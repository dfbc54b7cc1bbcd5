import Entitlements

extension Transaction {
    /// One `in_app` / `latest_receipt_info` entry as Apple writes it: every id, date and flag
    /// a string, as in most production responses (the reader accepts numbers too).
    ///
    /// The shared model keeps no cancellation reason, so a refund is written with
    /// `cancellation_reason` "0" (other), the reason Apple reports for most refunds; an upgraded
    /// transaction carries its cancellation date and `is_upgraded` but no reason, as Apple's do.
    func receiptInfoJSON() -> AppleJSONWriter {
        var info = AppleJSONWriter()
        info.string("quantity", "1")
        info.string("product_id", productID)
        info.string("transaction_id", transactionID)
        info.string("original_transaction_id", originalTransactionID)
        info.receiptDate("purchase_date", purchaseDateMs)
        info.receiptDate("original_purchase_date", originalPurchaseDateMs)
        info.receiptDate("expires_date", expiresDateMs)
        info.string("web_order_line_item_id", webOrderLineItemID)
        info.string("is_trial_period", String(isTrialPeriod))
        if expiresDateMs != nil {
            info.string("is_in_intro_offer_period", String(isInIntroOfferPeriod))
        }
        info.receiptDate("cancellation_date", cancellationDateMs)
        if cancellationDateMs != nil, !isUpgraded {
            info.string("cancellation_reason", "0")
        }
        if isUpgraded {
            info.string("is_upgraded", "true")
        }
        info.string("in_app_ownership_type", inAppOwnershipType)
        info.string("subscription_group_identifier", subscriptionGroupIdentifier)
        info.string("app_account_token", appAccountToken)
        return info
    }
}

extension RenewalInfo {
    /// One `pending_renewal_info` entry: flags "1"/"0" as Apple sends them there (unlike the
    /// "true"/"false" of receipt entries). `productID` is the chain's current product, which
    /// the shared model keeps on the transactions, not here.
    func pendingRenewalJSON(productID: String?) -> AppleJSONWriter {
        var info = AppleJSONWriter()
        info.string("expiration_intent", expirationIntent.map { String($0) })
        info.string("auto_renew_product_id", autoRenewProductID)
        info.string("is_in_billing_retry_period", isInBillingRetryPeriod ? "1" : "0")
        info.string("product_id", productID)
        info.string("original_transaction_id", originalTransactionID)
        info.string("auto_renew_status", autoRenewStatus ? "1" : "0")
        info.receiptDate("grace_period_expires_date", gracePeriodExpiresDateMs)
        return info
    }

    /// The product of this chain's newest transaction among `transactions`.
    func currentProductID(in transactions: [Transaction]) -> String? {
        transactions.filter { $0.originalTransactionID == originalTransactionID }
            .max { $0.isOrdered(before: $1) }?.productID ?? autoRenewProductID
    }
}
