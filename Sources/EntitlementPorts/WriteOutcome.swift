/// What one acknowledged ``FactsWrite`` changed; it is durable when the caller sees this.
public struct WriteOutcome: Sendable, Hashable {
    /// Transactions stored for the first time (a known transaction_id counts 0, even if updated).
    public var newTransactions: Int
    /// History events added; a replay adds 0 because event ids come from the source.
    public var newEvents: Int
    /// The write's ``FactsWrite/sourceID`` had been recorded before this write.
    public var alreadyProcessed: Bool
    /// Chains that moved to the writing user from another owner.
    public var ownershipTransfers: Int = 0
    /// Chains that became the writing user's by this write (created, bound or moved) and carry
    /// no app account token: the service asks Apple to set the user's token on them.
    public var tokenlessChainsTaken: [String] = []
    /// The claims refused; when any is, nothing but the refusals' history events was written
    /// and the store's ``EntitlementRepository/write(_:)`` throws ``StoreError/claimRefused(_:claimant:)``.
    public var refusals: [ClaimRefusal] = []

    public init(newTransactions: Int = 0, newEvents: Int = 0, alreadyProcessed: Bool = false) {
        self.newTransactions = newTransactions
        self.newEvents = newEvents
        self.alreadyProcessed = alreadyProcessed
    }
}
