/// What Apple says will happen next to one subscription chain (pending_renewal_info / JWS renewal).
///
/// Only the newest one per chain matters; ``signedDateMs`` (Apple's signedDate, or when we
/// observed it for unsigned sources) decides which is newest, so a late, older notification
/// cannot move state backwards.
public struct RenewalInfo: Sendable, Hashable {
    public var originalTransactionID: String
    public var autoRenewStatus: Bool
    public var autoRenewProductID: String?
    public var isInBillingRetryPeriod: Bool
    public var gracePeriodExpiresDateMs: Int64?
    /// Apple's expiration_intent (1 cancelled, 2 billing error, 3 price consent, 4 unavailable, 5 other).
    public var expirationIntent: Int?
    public var signedDateMs: Int64

    public init(
        originalTransactionID: String,
        autoRenewStatus: Bool,
        autoRenewProductID: String? = nil,
        isInBillingRetryPeriod: Bool = false,
        gracePeriodExpiresDateMs: Int64? = nil,
        expirationIntent: Int? = nil,
        signedDateMs: Int64
    ) {
        self.originalTransactionID = originalTransactionID
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDateMs = gracePeriodExpiresDateMs
        self.expirationIntent = expirationIntent
        self.signedDateMs = signedDateMs
    }
}
