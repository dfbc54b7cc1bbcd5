/// One App Store transaction, as Apple reported it, in the shape the entitlement rules need.
///
/// Ids stay strings end to end: Apple's exceed 2^53 and have arrived as JSON numbers.
/// Dates are Unix milliseconds, as Apple's `*_ms` fields; `nil` where Apple sent nothing.
public struct Transaction: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var purchaseDateMs: Int64
    public var originalPurchaseDateMs: Int64
    /// Present for subscriptions only; its presence is how a catalog-less product is classified.
    public var expiresDateMs: Int64?
    /// A refund or revocation: such a transaction never grants access.
    public var cancellationDateMs: Int64?
    public var isTrialPeriod: Bool
    public var isInIntroOfferPeriod: Bool
    /// The transaction was replaced by an upgrade within its subscription group.
    public var isUpgraded: Bool
    public var subscriptionGroupIdentifier: String?
    /// Apple's web order line item id, kept as a number when it is one (``IDText``).
    public var webOrderLineItemID: String? {
        get { webOrderLineItem?.text }
        set { webOrderLineItem = newValue.map(IDText.init) }
    }
    @usableFromInline var webOrderLineItem: IDText?
    /// "PURCHASED" or "FAMILY_SHARED"; kept raw because Apple adds values.
    public var inAppOwnershipType: String?
    public var appAccountToken: String?
    public var environment: Environment
    /// Set only where Apple's data names the type (StoreKit 2 JWS `type`); the catalog wins over it.
    public var declaredProductType: ProductType?

    /// Inlinable so that a caller in another module (the store's record decoder, the JSON
    /// readers) builds the value in place instead of passing sixteen arguments to a call that
    /// copies them (~480 instructions a transaction decoded on a facts-cache miss, callgrind).
    @inlinable
    public init(
        transactionID: String,
        originalTransactionID: String,
        productID: String,
        purchaseDateMs: Int64,
        originalPurchaseDateMs: Int64? = nil,
        expiresDateMs: Int64? = nil,
        cancellationDateMs: Int64? = nil,
        isTrialPeriod: Bool = false,
        isInIntroOfferPeriod: Bool = false,
        isUpgraded: Bool = false,
        subscriptionGroupIdentifier: String? = nil,
        webOrderLineItemID: String? = nil,
        inAppOwnershipType: String? = nil,
        appAccountToken: String? = nil,
        environment: Environment = .production,
        declaredProductType: ProductType? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.purchaseDateMs = purchaseDateMs
        self.originalPurchaseDateMs = originalPurchaseDateMs ?? purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.cancellationDateMs = cancellationDateMs
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.webOrderLineItem = webOrderLineItemID.map(IDText.init)
        self.inAppOwnershipType = inAppOwnershipType
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.declaredProductType = declaredProductType
    }
}
