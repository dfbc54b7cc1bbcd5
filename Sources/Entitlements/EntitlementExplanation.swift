/// Why a user has or lacks one entitlement: the answer, the rule behind it, and the facts.
///
/// Built by ``EntitlementRules/explain(_:productID:entitlementID:at:catalog:)`` from the same
/// decision CheckEntitlement takes, for support engineers asking "why (not)?".
public struct EntitlementExplanation: Sendable, Hashable {
    /// Exactly what CheckEntitlement answers for this chain at the same instant.
    public var entitlement: Entitlement
    /// The rule that decided ``entitlement``'s state.
    public var rule: EntitlementRule
    /// The transaction the rule rests on: the period that covers (or ended), or the refund.
    public var decisiveTransactionID: String
    /// The chain's transactions that counted at the instant, newest first (``Transaction``'s
    /// chain order): at an explicit instant, those bought after it are left out, as the rules
    /// leave them out.
    public var transactions: [Transaction]
    /// The catalog's fixed duration when it set a non-renewing purchase's expiry; `nil` otherwise.
    public var catalogDurationMs: Int64?
    /// The instant the rules judged.
    public var evaluatedAtMs: Int64
    /// The grant behind ``entitlement`` when it was given by hand; nil for Apple's chains.
    public var grant: Grant?

    public init(
        entitlement: Entitlement, rule: EntitlementRule, decisiveTransactionID: String,
        transactions: [Transaction], catalogDurationMs: Int64? = nil, evaluatedAtMs: Int64, grant: Grant? = nil
    ) {
        self.grant = grant
        self.entitlement = entitlement
        self.rule = rule
        self.decisiveTransactionID = decisiveTransactionID
        self.transactions = transactions
        self.catalogDurationMs = catalogDurationMs
        self.evaluatedAtMs = evaluatedAtMs
    }

    /// The decisive transaction itself (always one of ``transactions``).
    public var decisiveTransaction: Transaction? {
        transactions.first { $0.transactionID == decisiveTransactionID }
    }

    /// One sentence naming the state, the rule and the transaction it rests on, e.g.
    /// "GRACE_PERIOD: the period of transaction 2000 ended at 2026-03-01T00:00:00Z, and
    /// Apple's grace period runs until 2026-03-17T00:00:00Z".
    public var reason: String { ExplanationSentence.reason(for: self) }
}
