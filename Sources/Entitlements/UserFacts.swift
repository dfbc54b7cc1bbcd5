/// Everything stored about one user that the rules need: facts, not derived state.
///
/// The store hands this out; ``EntitlementRules`` turns it into entitlements at an instant, so a
/// rule fix changes every answer at once and late facts cannot push state backwards.
public struct UserFacts: Sendable, Hashable {
    /// Every transaction of every chain the user owns, in no particular order.
    public var transactions: [Transaction]
    /// The newest renewal info per chain, keyed by original transaction id.
    public var renewalInfos: [String: RenewalInfo]

    public init(transactions: [Transaction] = [], renewalInfos: [String: RenewalInfo] = [:]) {
        self.transactions = transactions
        self.renewalInfos = renewalInfos
    }
}
