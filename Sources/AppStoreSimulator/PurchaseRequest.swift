import Entitlements

/// What the customer buys in a simulated purchase.
public struct PurchaseRequest: Sendable, Hashable {
    /// An introductory offer on the first period of a subscription.
    public enum Offer: String, Sendable, Hashable {
        case none
        case freeTrial = "trial"
        case introductory = "intro"
    }

    public var productID: String
    public var type: ProductType
    /// The subscription period (auto-renewables only), in simulated milliseconds.
    public var periodMs: Int64?
    public var offer: Offer
    /// The customer (an Apple ID stand-in): purchases with the same token share one app receipt.
    /// `nil` makes a new customer.
    public var userToken: String?
    /// StoreKit's `appAccountToken` (a UUID the app chose), kept as given: it goes into the
    /// transaction, every renewal of its chain, the renewal info and every notification about them.
    public var appAccountToken: String?
    public var environment: Environment

    public init(
        productID: String, type: ProductType, periodMs: Int64? = nil, offer: Offer = .none,
        userToken: String? = nil, appAccountToken: String? = nil, environment: Environment = .production
    ) {
        self.productID = productID
        self.type = type
        self.periodMs = periodMs
        self.offer = offer
        self.userToken = userToken
        self.appAccountToken = appAccountToken
        self.environment = environment
    }
}
