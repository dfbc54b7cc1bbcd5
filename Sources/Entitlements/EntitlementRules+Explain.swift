/// ExplainEntitlement: the check's answer with the rule and facts behind each entitlement.
extension EntitlementRules {
    /// The explanations for exactly the entitlements ``check(_:productID:entitlementID:at:catalog:)``
    /// answers with the same arguments, in the same order.
    ///
    /// A separate entry point so the check stays lean: it never builds the transaction lists
    /// and sentences only an explanation needs. Both take the decision from
    /// ``ChainSnapshot/entitlement(in:renewalInfos:catalog:at:recordingInto:)``.
    public static func explain(
        _ facts: UserFacts, productID: String, entitlementID: String, at time: EvaluationTime,
        catalog: Catalog
    ) -> [EntitlementExplanation] {
        let transactions = facts.transactions
        var explanations: [EntitlementExplanation] = []
        for first in transactions.indices where startsChain(at: first, in: transactions) {
            var decision = RecordedDecision()
            guard let chain = ChainSnapshot(chainStartingAt: first, in: transactions, at: time),
                  let entitlement = chain.entitlement(
                      in: transactions, renewalInfos: facts.renewalInfos, catalog: catalog, at: time,
                      recordingInto: &decision),
                  matches(entitlement, productID: productID, entitlementID: entitlementID)
            else { continue }
            let decisive = transactions[decision.decisive]
            let chainTransactions = transactions.indices
                .filter { ChainSnapshot.counts($0, in: transactions, chainID: decisive.originalTransactionID,
                                               upTo: time.factsUpToMs) }
                .map { transactions[$0] }
                .sorted { $1.isOrdered(before: $0) }
            let duration = entitlement.productType == .nonRenewing
                ? catalog.entry(for: entitlement.productID)?.durationMs : nil
            explanations.append(EntitlementExplanation(
                entitlement: entitlement, rule: decision.rule, decisiveTransactionID: decisive.transactionID,
                transactions: chainTransactions, catalogDurationMs: duration, evaluatedAtMs: time.instantMs))
        }
        for grant in facts.grants where grantMatches(grant, productID: productID, entitlementID: entitlementID,
                                                     catalog: catalog) {
            guard let entitlement = grant.entitlement(at: time) else { continue }
            let rule: EntitlementRule = switch entitlement.state {
            case .revoked: .grantRevoked
            case .expired: .grantEnded
            default: .grantCovers
            }
            explanations.append(EntitlementExplanation(
                entitlement: entitlement, rule: rule, decisiveTransactionID: grant.grantID, transactions: [],
                evaluatedAtMs: time.instantMs, grant: grant))
        }
        explanations.sort { listOrder($0.entitlement, $1.entitlement) }
        return explanations
    }
}
