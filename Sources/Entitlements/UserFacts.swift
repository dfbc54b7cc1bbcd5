/// Everything stored about one user that the rules need: facts, not derived state.
///
/// The store hands this out; ``EntitlementRules`` turns it into entitlements at an instant, so a
/// rule fix changes every answer at once and late facts cannot push state backwards.
public struct UserFacts: Sendable, Hashable {
    /// Every transaction of every chain the user owns, in no particular order.
    public var transactions: [Transaction] {
        didSet { checkAnswers = nil }
    }
    /// The newest renewal info per chain, keyed by original transaction id.
    public var renewalInfos: [String: RenewalInfo] {
        didSet { checkAnswers = nil }
    }
    /// Entitlements given by hand, revoked ones included (a revocation is not retroactive).
    public var grants: [Grant] {
        didSet { checkAnswers = nil }
    }
    /// Where answers judged from exactly these facts may be kept, when the holder of the facts
    /// keeps them long enough to be worth it (the store's cache); `nil` otherwise. Changing
    /// either field above detaches it, so a memo never outlives the facts it was filled from.
    public private(set) var checkAnswers: CheckAnswerMemo?

    public init(transactions: [Transaction] = [], renewalInfos: [String: RenewalInfo] = [:], grants: [Grant] = []) {
        self.transactions = transactions
        self.renewalInfos = renewalInfos
        self.grants = grants
    }

    /// These facts with a fresh, empty ``CheckAnswerMemo`` that every copy of the result shares.
    public func withCheckAnswerMemo() -> UserFacts {
        var facts = self
        facts.checkAnswers = CheckAnswerMemo()
        return facts
    }

    /// Facts are equal when their transactions, renewal infos and grants are; the memo is not a fact.
    public static func == (a: UserFacts, b: UserFacts) -> Bool {
        a.transactions == b.transactions && a.renewalInfos == b.renewalInfos && a.grants == b.grants
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactions)
        hasher.combine(renewalInfos)
        hasher.combine(grants)
    }
}
