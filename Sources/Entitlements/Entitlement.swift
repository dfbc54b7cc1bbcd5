/// The answer for one chain or purchase at an instant: what the user may use and why.
public struct Entitlement: Sendable, Hashable {
    public var productID: String
    public var originalTransactionID: String
    public var state: EntitlementState
    public var purchasedAtMs: Int64
    /// 0 for products that never expire (non-consumables).
    public var expiresAtMs: Int64
    public var gracePeriodExpiresAtMs: Int64
    public var willAutoRenew: Bool
    public var isTrialPeriod: Bool
    public var isInIntroOfferPeriod: Bool
    public var productType: ProductType
    public var subscriptionGroupID: String
    public var environment: Environment
    public var latestTransactionID: String
    public var entitlementID: String

    public var isActive: Bool { state.grantsAccess }

    public init(
        productID: String, originalTransactionID: String, state: EntitlementState,
        purchasedAtMs: Int64, expiresAtMs: Int64, gracePeriodExpiresAtMs: Int64 = 0,
        willAutoRenew: Bool = false, isTrialPeriod: Bool = false, isInIntroOfferPeriod: Bool = false,
        productType: ProductType, subscriptionGroupID: String = "", environment: Environment,
        latestTransactionID: String, entitlementID: String
    ) {
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.state = state
        self.purchasedAtMs = purchasedAtMs
        self.expiresAtMs = expiresAtMs
        self.gracePeriodExpiresAtMs = gracePeriodExpiresAtMs
        self.willAutoRenew = willAutoRenew
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.productType = productType
        self.subscriptionGroupID = subscriptionGroupID
        self.environment = environment
        self.latestTransactionID = latestTransactionID
        self.entitlementID = entitlementID
    }
}
