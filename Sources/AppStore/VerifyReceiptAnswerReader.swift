import Entitlements

/// Reads a verifyReceipt answer in one pass straight into ``VerifyReceiptResponse``: fields it
/// maps are read where they stand, everything else is skipped without being made.
///
/// Why: through the general path (``AppleJSONParser``'s tree, then ``AppleJSONObject``'s
/// readers) an answer of 15 receipt infos made a String for every key and value, dates
/// included, and looked each field up by comparing Strings: an eighth of SubmitReceipt's CPU.
///
/// It only ever answers what the general path would: it reads by ``AppleJSONParser``'s scanning
/// rules (so it accepts no document that path does not), maps fields with the same readers'
/// leniency, and declines (`nil`) everything else: an unusual form of a value (`"TRUE"`, a
/// negative or quoted-signed number, an object where an array is usual), an error the general
/// path would report, a mapped key twice in one object, iOS 6 style receipts. The caller then
/// takes the general path, which decides. `VerifyReceiptAnswerReaderTests` hold the two to the
/// same answers on Apple's samples, the fuzz seeds and thousands of mutations of them.
struct VerifyReceiptAnswerReader {
    var json: AppleJSONParser

    static func read(_ body: [UInt8], observedAtMs: Int64) -> VerifyReceiptResponse? {
        body.withUnsafeBufferPointer { buffer in
            var reader = VerifyReceiptAnswerReader(json: AppleJSONParser(bytes: buffer))
            return reader.answer(observedAtMs: observedAtMs)
        }
    }

    private init(json: AppleJSONParser) { self.json = json }

    /// One receipt info's fields as sent, before the environment (which may come later in the
    /// document) makes them a ``Transaction``.
    private struct ReceiptInfo {
        var transactionID: String?, originalTransactionID: String?, productID: String?
        var purchaseDateMs: Int64?, originalPurchaseDateMs: Int64?, expiresDateMs: Int64?
        var cancellationDateMs: Int64?
        var isTrialPeriod: Bool?, isInIntroOfferPeriod: Bool?, isUpgraded: Bool?
        var subscriptionGroupIdentifier: String?, webOrderLineItemID: String?
        var inAppOwnershipType: String?, appAccountToken: String?

        func transaction(environment: Environment) -> Transaction? {
            guard let transactionID, let productID, let purchaseDateMs else { return nil }
            return Transaction(
                transactionID: transactionID, originalTransactionID: originalTransactionID ?? transactionID,
                productID: productID, purchaseDateMs: purchaseDateMs,
                originalPurchaseDateMs: originalPurchaseDateMs, expiresDateMs: expiresDateMs,
                cancellationDateMs: cancellationDateMs, isTrialPeriod: isTrialPeriod ?? false,
                isInIntroOfferPeriod: isInIntroOfferPeriod ?? false, isUpgraded: isUpgraded ?? false,
                subscriptionGroupIdentifier: subscriptionGroupIdentifier, webOrderLineItemID: webOrderLineItemID,
                inAppOwnershipType: inAppOwnershipType, appAccountToken: appAccountToken, environment: environment)
        }
    }

    private mutating func answer(observedAtMs: Int64) -> VerifyReceiptResponse? {
        var status: Int?, isRetryable: Bool?, environment: Environment?, latestReceipt: String?
        var receipt: (type: Environment?, inApp: [ReceiptInfo]?, bundleID: String?)?
        var latest: [ReceiptInfo]?, latestExpired: [ReceiptInfo]?
        var renewals: [RenewalInfo]?
        var seen = FieldsSeen()
        let parsed = members { reader, key in
            switch key {
            case "status": return seen.first(0) && reader.integer(into: &status)
            case "is-retryable": return seen.first(1) && reader.bool(into: &isRetryable)
            case "environment": return seen.first(2) && reader.environment(into: &environment)
            case "latest_receipt": return seen.first(3) && reader.text(into: &latestReceipt)
            case "receipt": return seen.first(4) && reader.receipt(into: &receipt)
            case "latest_receipt_info": return seen.first(5) && reader.receiptInfos(into: &latest)
            case "latest_expired_receipt_info": return seen.first(6) && reader.receiptInfos(into: &latestExpired)
            case "pending_renewal_info":
                return seen.first(7) && reader.renewals(observedAtMs: observedAtMs, into: &renewals)
            default: return reader.json.skipValue()
            }
        }
        json.skipWhitespace()
        guard parsed, json.index == json.bytes.count, let status else { return nil }
        guard status == 0 || status == 21006 else {
            return VerifyReceiptResponse(status: status, isRetryable: isRetryable, environment: environment)
        }
        let recorded = environment ?? receipt?.type ?? .production
        var union = ReceiptUnion()
        for infos in [receipt?.inApp, latestExpired, latest] {
            var transactions: [Transaction] = []
            for info in infos ?? [] {
                guard let transaction = info.transaction(environment: recorded) else { return nil }
                transactions.append(transaction)
            }
            union.add(transactions)
        }
        union.addPendingRenewals(renewals ?? [])
        return VerifyReceiptResponse(
            status: status, isRetryable: isRetryable, environment: environment ?? receipt?.type,
            bundleID: receipt?.bundleID, transactions: union.sortedTransactions,
            renewalInfos: union.sortedRenewalInfos, latestReceipt: latestReceipt)
    }

    // MARK: The answer's objects

    private mutating func receipt(
        into receipt: inout (type: Environment?, inApp: [ReceiptInfo]?, bundleID: String?)?
    ) -> Bool {
        if isNull() { return true }
        var type: String?, inApp: [ReceiptInfo]?, bundleID: String?, bid: String?, hasTransactionID = false
        var seen = FieldsSeen()
        guard members({ reader, key in
            switch key {
            case "receipt_type": return seen.first(0) && reader.text(into: &type)
            case "in_app": return seen.first(1) && reader.receiptInfos(into: &inApp)
            case "bundle_id": return seen.first(2) && reader.text(into: &bundleID)
            case "bid": return seen.first(3) && reader.text(into: &bid)
            case "transaction_id":
                // Present (and not absent-like) without in_app: an iOS 6 receipt, the general path's.
                var id: String?
                guard seen.first(4), reader.text(into: &id) else { return false }
                hasTransactionID = id != nil
                return true
            default: return reader.json.skipValue()
            }
        }) else { return false }
        if inApp == nil && hasTransactionID { return false }
        var environment: Environment?
        if let type {
            // A receipt_type naming neither is ignored by the general path, as here.
            environment = Environment(receiptType: type)
        }
        receipt = (environment, inApp, bundleID ?? bid)
        return true
    }

    private mutating func receiptInfos(into infos: inout [ReceiptInfo]?) -> Bool {
        if isNull() { return true }
        guard json.peek == UInt8(ascii: "[") else { return false }
        var read: [ReceiptInfo] = []
        guard elements({ reader in
            var info = ReceiptInfo()
            guard reader.receiptInfo(into: &info) else { return false }
            read.append(info)
            return true
        }) else { return false }
        infos = read
        return true
    }

    /// The keys of ``Transaction/init(receiptInfo:environment:)``, read the same way.
    private mutating func receiptInfo(into info: inout ReceiptInfo) -> Bool {
        guard json.peek == UInt8(ascii: "{") else { return false }
        var seen = FieldsSeen()
        var quantity: Int64?
        return members { reader, key in
            switch key {
            case "transaction_id": return seen.first(0) && reader.text(into: &info.transactionID)
            case "original_transaction_id": return seen.first(1) && reader.text(into: &info.originalTransactionID)
            case "product_id": return seen.first(2) && reader.text(into: &info.productID)
            case "purchase_date_ms": return seen.first(3) && reader.int64(into: &info.purchaseDateMs)
            case "original_purchase_date_ms":
                return seen.first(4) && reader.int64(into: &info.originalPurchaseDateMs)
            case "expires_date_ms": return seen.first(5) && reader.int64(into: &info.expiresDateMs)
            case "cancellation_date_ms": return seen.first(6) && reader.int64(into: &info.cancellationDateMs)
            case "is_trial_period": return seen.first(7) && reader.bool(into: &info.isTrialPeriod)
            case "is_in_intro_offer_period": return seen.first(8) && reader.bool(into: &info.isInIntroOfferPeriod)
            case "is_upgraded": return seen.first(9) && reader.bool(into: &info.isUpgraded)
            case "subscription_group_identifier":
                return seen.first(10) && reader.text(into: &info.subscriptionGroupIdentifier)
            case "web_order_line_item_id": return seen.first(11) && reader.text(into: &info.webOrderLineItemID)
            case "in_app_ownership_type": return seen.first(12) && reader.text(into: &info.inAppOwnershipType)
            case "app_account_token": return seen.first(13) && reader.text(into: &info.appAccountToken)
            case "quantity": return seen.first(14) && reader.int64(into: &quantity)
            default: return reader.json.skipValue()
            }
        }
    }

    /// The keys of ``RenewalInfo/init(pendingRenewal:observedAtMs:)``, read the same way.
    private mutating func renewals(observedAtMs: Int64, into renewals: inout [RenewalInfo]?) -> Bool {
        if isNull() { return true }
        guard json.peek == UInt8(ascii: "[") else { return false }
        var read: [RenewalInfo] = []
        guard elements({ reader in
            guard reader.json.peek == UInt8(ascii: "{") else { return false }
            var id: String?, productID: String?, status: Bool?, retrying: Bool?, grace: Int64?, intent: Int?
            var seen = FieldsSeen()
            guard reader.members({ reader, key in
                switch key {
                case "original_transaction_id": return seen.first(0) && reader.text(into: &id)
                case "auto_renew_status": return seen.first(1) && reader.bool(into: &status)
                case "auto_renew_product_id": return seen.first(2) && reader.text(into: &productID)
                case "is_in_billing_retry_period": return seen.first(3) && reader.bool(into: &retrying)
                case "grace_period_expires_date_ms": return seen.first(4) && reader.int64(into: &grace)
                case "expiration_intent": return seen.first(5) && reader.integer(into: &intent)
                default: return reader.json.skipValue()
                }
            }), let id else { return false }
            read.append(RenewalInfo(
                originalTransactionID: id, autoRenewStatus: status ?? false, autoRenewProductID: productID,
                isInBillingRetryPeriod: retrying ?? false, gracePeriodExpiresDateMs: grace,
                expirationIntent: intent, signedDateMs: observedAtMs))
            return true
        }) else { return false }
        renewals = read
        return true
    }
}
