import Entitlements

/// Apple's answer to verifyReceipt, reduced to the facts the service stores.
///
/// Parsing is tolerant of Apple's drift (see ``AppStoreFormatError`` for what is not), never
/// relies on array order, and keeps ids as strings end to end.
public struct VerifyReceiptResponse: Sendable, Hashable {
    /// Apple's status; classify it with ``VerifyReceiptStatus/classify(status:isRetryable:)``.
    public var status: Int
    /// `is-retryable`, sent with 21100–21199; `nil` when absent or unreadable.
    public var isRetryable: Bool?
    /// `nil` only when Apple named none (error answers, old production answers).
    public var environment: Environment?
    /// `receipt.bundle_id` (`receipt.bid` in iOS 6 style receipts); the caller compares it with
    /// `--bundle-id` and must reject a receipt that names none when that flag is set.
    public var bundleID: String?
    /// The union of every receipt info by `transaction_id`, by chain, oldest first.
    public var transactions: [Transaction]
    /// One per `original_transaction_id`, ordered by it.
    public var renewalInfos: [RenewalInfo]
    /// The latest base64 receipt, which the caller may store to re-verify later.
    public var latestReceipt: String?

    public init(
        status: Int, isRetryable: Bool? = nil, environment: Environment? = nil,
        bundleID: String? = nil, transactions: [Transaction] = [],
        renewalInfos: [RenewalInfo] = [], latestReceipt: String? = nil
    ) {
        self.status = status
        self.isRetryable = isRetryable
        self.environment = environment
        self.bundleID = bundleID
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.latestReceipt = latestReceipt
    }

    /// Parses a response body; `observedAtMs` becomes every ``RenewalInfo/signedDateMs``, since
    /// verifyReceipt renewal info is unsigned and undated.
    ///
    /// For a status other than 0 and 21006 only `status`, `is-retryable` and `environment`
    /// are read, leniently: an error answer may lack the receipt, and an unreadable optional
    /// field must not hide the status that says what to do.
    ///
    /// Transactions take `environment`, else `receipt.receipt_type`, else production (old
    /// production answers named none); the caller, knowing which endpoint answered, may
    /// override it.
    ///
    /// `decoding` is for tests that hold the purpose-built decoder to `JSONSerialization`'s
    /// reading; the service always uses the default.
    ///
    /// With `.purposeBuilt`, ``VerifyReceiptAnswerReader`` reads the usual answer in one pass;
    /// whatever it declines takes the general path below.
    public static func parse(
        _ body: [UInt8], observedAtMs: Int64, decoding: AppleJSONDecoding = .purposeBuilt
    ) throws(AppStoreFormatError) -> VerifyReceiptResponse {
        if decoding == .purposeBuilt, let answer = VerifyReceiptAnswerReader.read(body, observedAtMs: observedAtMs) {
            return answer
        }
        return try parseGenerally(body, observedAtMs: observedAtMs, decoding: decoding)
    }

    /// The general path: a JSON tree read by ``AppleJSONObject``'s tolerant readers.
    static func parseGenerally(
        _ body: [UInt8], observedAtMs: Int64, decoding: AppleJSONDecoding
    ) throws(AppStoreFormatError) -> VerifyReceiptResponse {
        let root = try AppleJSONObject.parse(body, decoding: decoding)
        let status = try root.requiredInt("status")
        let isRetryable = try? root.bool("is-retryable")
        guard status == 0 || status == 21006 else {
            let environment = try? root.environment("environment")
            return VerifyReceiptResponse(
                status: status, isRetryable: isRetryable ?? nil, environment: environment ?? nil)
        }
        let receipt = try root.object("receipt")
        // `??` would erase the typed throw through its autoclosure.
        var environment = try root.environment("environment")
        if environment == nil { environment = try receipt?.receiptTypeEnvironment() }
        let recorded = environment ?? .production

        var union = ReceiptUnion()
        if let receipt {
            if receipt.has("in_app") {
                try union.add(try receipt.objects("in_app"), environment: recorded)
            } else if receipt.has("transaction_id") {
                // iOS 6 style: the receipt is itself the one transaction it proves.
                try union.add([receipt], environment: recorded)
            }
        }
        try union.add(try root.objects("latest_expired_receipt_info"), environment: recorded)
        try union.add(try root.objects("latest_receipt_info"), environment: recorded)
        try union.addPendingRenewals(
            try root.objects("pending_renewal_info"), observedAtMs: observedAtMs)

        var bundleID = try receipt?.string("bundle_id")
        if bundleID == nil { bundleID = try receipt?.string("bid") }
        return VerifyReceiptResponse(
            status: status, isRetryable: isRetryable ?? nil, environment: environment,
            bundleID: bundleID,
            transactions: union.sortedTransactions, renewalInfos: union.sortedRenewalInfos,
            latestReceipt: try root.string("latest_receipt"))
    }

    /// Fuzzing entry point: parses arbitrary bytes both ways and discards the result. Traps only
    /// when ``VerifyReceiptAnswerReader`` answers and the general path does not answer the same,
    /// so libFuzzer reports the input.
    public static func fuzzParse(_ bytes: UnsafeRawBufferPointer) {
        let body = Array(bytes)
        let general = try? parseGenerally(body, observedAtMs: 0, decoding: .purposeBuilt)
        if let direct = VerifyReceiptAnswerReader.read(body, observedAtMs: 0) {
            precondition(direct == general, "the direct verifyReceipt reader answered unlike the general path")
        }
    }
}

extension AppleJSONObject {
    /// `receipt.receipt_type` ("Production", "ProductionSandbox", "ProductionVPPSandbox"…),
    /// the fallback when a response omits `environment`.
    func receiptTypeEnvironment() throws(AppStoreFormatError) -> Environment? {
        guard let type = try string("receipt_type") else { return nil }
        return Environment(receiptType: type)
    }
}

extension Environment {
    /// The environment a `receipt_type` names, `nil` for neither.
    init?(receiptType type: String) {
        if type.lowercased().contains("sandbox") {
            self = .sandbox
        } else if type.lowercased().hasPrefix("production") {
            self = .production
        } else {
            return nil
        }
    }
}
