import Entitlements

/// Facts about one user that arrived together (one receipt, one signed transaction), written
/// atomically. History events are derived from them by the store (``HistoryDerivation``);
/// notification-driven events arrive with a ``NotificationWrite``, which is about chains.
public struct FactsWrite: Sendable {
    public var userID: String
    public var transactions: [Transaction]
    public var renewalInfos: [RenewalInfo]
    public var source: HistoryEvent.Source
    /// The receipt or signed transaction hash, recorded as processed; `nil` records nothing.
    public var sourceID: String?
    /// What the claimant offered; decides whether a chain another user owns can move
    /// (``ClaimRules``).
    public var proof: ClaimProof
    /// What V2 signed transactions among ``transactions`` cost (the daily rollup's revenue);
    /// verifyReceipt answers carry no price.
    public var prices: [TransactionPrice]

    public init(
        userID: String, transactions: [Transaction] = [], renewalInfos: [RenewalInfo] = [],
        source: HistoryEvent.Source, sourceID: String? = nil, proof: ClaimProof = .deviceProof,
        prices: [TransactionPrice] = []
    ) {
        self.userID = userID
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.source = source
        self.sourceID = sourceID
        self.proof = proof
        self.prices = prices
    }
}
