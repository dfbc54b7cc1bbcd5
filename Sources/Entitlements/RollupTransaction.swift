/// One transaction as the daily rollup reads it: the few fields its rules look at.
public struct RollupTransaction: Sendable, Hashable {
    public var transactionID: String
    public var purchaseDateMs: Int64
    /// Present for subscriptions only; a transaction without one counts only as revenue and refund.
    public var expiresDateMs: Int64?
    public var cancellationDateMs: Int64?
    public var isTrialPeriod: Bool
    public var isUpgraded: Bool
    public var environment: Environment
    public var price: TransactionPrice?

    public init(transactionID: String, purchaseDateMs: Int64, expiresDateMs: Int64? = nil,
                cancellationDateMs: Int64? = nil, isTrialPeriod: Bool = false, isUpgraded: Bool = false,
                environment: Environment = .production, price: TransactionPrice? = nil) {
        self.transactionID = transactionID
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.cancellationDateMs = cancellationDateMs
        self.isTrialPeriod = isTrialPeriod
        self.isUpgraded = isUpgraded
        self.environment = environment
        self.price = price
    }

    public init(_ transaction: Transaction, price: TransactionPrice? = nil) {
        self.init(transactionID: transaction.transactionID, purchaseDateMs: transaction.purchaseDateMs,
                  expiresDateMs: transaction.expiresDateMs, cancellationDateMs: transaction.cancellationDateMs,
                  isTrialPeriod: transaction.isTrialPeriod, isUpgraded: transaction.isUpgraded,
                  environment: transaction.environment, price: price)
    }
}
