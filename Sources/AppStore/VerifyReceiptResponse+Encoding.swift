import Entitlements

extension VerifyReceiptResponse {
    /// Apple's verifyReceipt JSON for this response, what ``parse(_:observedAtMs:)`` reads back.
    ///
    /// ``transactions`` become `latest_receipt_info` and ``renewalInfos`` `pending_renewal_info`
    /// (leave both empty for a request without the shared secret: Apple then sends neither).
    /// `inApp` is `receipt.in_app`, frozen when the receipt was made, so it may miss renewals
    /// that `latest_receipt_info` has; `nil` writes ``transactions`` there too.
    ///
    /// A status other than 0 and 21006 is answered as Apple does: `status`, plus `environment`
    /// and `is-retryable` when set, nothing else.
    public func jsonBody(
        inApp: [Transaction]? = nil, receiptCreationDateMs: Int64? = nil, requestDateMs: Int64? = nil
    ) -> [UInt8] {
        var root = AppleJSONWriter()
        guard status == 0 || status == 21006 else {
            root.number("status", status)
            root.string("environment", environment?.appleName)
            root.bool("is-retryable", isRetryable)
            return root.bytes
        }
        var receipt = AppleJSONWriter()
        receipt.string("receipt_type", environment == .sandbox ? "ProductionSandbox" : "Production")
        receipt.string("bundle_id", bundleID)
        receipt.string("application_version", "1")
        receipt.receiptDate("receipt_creation_date", receiptCreationDateMs)
        receipt.receiptDate("request_date", requestDateMs)
        receipt.array("in_app", (inApp ?? transactions).map { $0.receiptInfoJSON() })
        root.object("receipt", receipt)
        root.string("environment", environment?.appleName)
        if !transactions.isEmpty {
            root.array("latest_receipt_info", transactions.map { $0.receiptInfoJSON() })
        }
        root.string("latest_receipt", latestReceipt)
        if !renewalInfos.isEmpty {
            root.array("pending_renewal_info", renewalInfos.map {
                $0.pendingRenewalJSON(productID: $0.currentProductID(in: transactions))
            })
        }
        root.number("status", status)
        return root.bytes
    }
}
