import Entitlements

extension NotificationV1 {
    /// Apple's V1 notification JSON for this value, what ``parse(_:receivedAtMs:)`` reads back.
    ///
    /// Written in the `unified_receipt` shape Apple has sent since 2020 (no deprecated
    /// top-level receipt fields); `auto_renew_status` is "true"/"false", V1's spelling.
    public func jsonBody() -> [UInt8] {
        var unified = AppleJSONWriter()
        unified.string("environment", environment.appleName)
        unified.string("latest_receipt", latestReceipt)
        unified.array("latest_receipt_info", transactions.map { $0.receiptInfoJSON() })
        unified.array("pending_renewal_info", renewalInfos.map {
            $0.pendingRenewalJSON(productID: $0.currentProductID(in: transactions))
        })
        unified.number("status", unifiedReceiptStatus ?? 0)

        var root = AppleJSONWriter()
        root.string("notification_type", notificationType)
        root.string("password", password)
        root.string("environment", environment.appleV1Name)
        root.string("bid", bundleID)
        root.string("bvrs", bundleVersion)
        root.string("original_transaction_id", originalTransactionID)
        root.string("auto_renew_status", autoRenewStatus.map { String($0) })
        root.string("auto_renew_product_id", autoRenewProductID)
        root.string("cancellation_date_ms", cancellationDateMs.map { String($0) })
        root.object("unified_receipt", unified)
        return root.bytes
    }
}
