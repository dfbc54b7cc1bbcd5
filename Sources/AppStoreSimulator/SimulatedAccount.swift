import Entitlements

/// One customer of the simulated store: an Apple ID stand-in whose purchases of the app share
/// one app receipt, in one environment (a sandbox tester is never a production customer).
struct SimulatedAccount: Sendable {
    let id: String
    let environment: Environment
    /// Every transaction, in the order they happened; facts change in place (refunds, upgrades).
    var transactions: [Transaction] = []
    /// The base64 receipt issued after the newest transaction.
    var latestReceipt: String = ""

    init(id: String, environment: Environment) {
        self.id = id
        self.environment = environment
    }
}

/// An issued receipt: opaque base64 the simulator maps back to the account it proves.
///
/// `in_app` is frozen at issue, as Apple's is: a receipt made before a renewal never lists it,
/// which is exactly why clients must read `latest_receipt_info`.
struct IssuedReceipt: Sendable {
    let accountID: String
    let inAppTransactionIDs: [String]
    let createdAtMs: Int64
}

/// The state of one auto-renewable subscription chain, by its original transaction id.
struct SimulatedSubscription: Sendable {
    let originalTransactionID: String
    let accountID: String
    var productID: String
    /// Differs from `productID` after a downgrade, which takes effect at the next renewal.
    var autoRenewProductID: String
    var autoRenew = true
    var periodMs: Int64
    var latestTransactionID: String
    var expiresDateMs: Int64
    /// The next renewal's billing will fail (fail-billing), opening a grace period this long.
    var billingWillFail = false
    var pendingGraceMs: Int64?
    var isInBillingRetry = false
    var gracePeriodExpiresDateMs: Int64?
    var gracePeriodExpiryReported = false
    var expirationIntent: Int?
    /// No more renewals: expired (voluntarily or after billing retry) or revoked by a refund.
    var hasEnded = false
    var endedByRefund = false
    var recentSubscriptionStartMs: Int64

    /// Apple's billing retry lasts up to 60 days after the failed renewal.
    static let billingRetryMs: Int64 = 60 * SimulatedDuration.day

    func renewalInfo(at unixMs: Int64) -> RenewalInfo {
        RenewalInfo(
            originalTransactionID: originalTransactionID, autoRenewStatus: autoRenew,
            autoRenewProductID: autoRenewProductID, isInBillingRetryPeriod: isInBillingRetry,
            gracePeriodExpiresDateMs: isInBillingRetry ? gracePeriodExpiresDateMs : nil,
            expirationIntent: expirationIntent, signedDateMs: unixMs)
    }

    /// V2 `data.status` at `unixMs`: 1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked.
    func status(at unixMs: Int64) -> Int {
        if endedByRefund { return 5 }
        if isInBillingRetry {
            if let grace = gracePeriodExpiresDateMs, unixMs < grace { return 4 }
            return 3
        }
        return hasEnded || unixMs >= expiresDateMs ? 2 : 1
    }
}
