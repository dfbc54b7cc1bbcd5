import EntitlementAPI
import Entitlements

extension APIMapping {
    static func explanation(
        _ e: Entitlements.EntitlementExplanation, reporters: [String: Entitlements.HistoryEvent.Source]
    ) -> EntitlementV1.EntitlementExplanation {
        EntitlementV1.EntitlementExplanation(
            entitlement: entitlement(e.entitlement), reason: e.reason,
            transactions: e.transactions.map { transaction in
                transactionFact(transaction, source: reporters[transaction.transactionID],
                                decisive: transaction.transactionID == e.decisiveTransactionID)
            })
    }

    /// A refund's date is `revoked_at_ms`; an upgrade's (Apple puts it in the same field) is not.
    static func transactionFact(
        _ t: Entitlements.Transaction, source reporter: Entitlements.HistoryEvent.Source?, decisive: Bool
    ) -> EntitlementV1.TransactionFact {
        EntitlementV1.TransactionFact(
            transactionID: t.transactionID, productID: t.productID, purchasedAtMs: t.purchaseDateMs,
            expiresAtMs: t.expiresDateMs ?? 0, revokedAtMs: t.isUpgraded ? 0 : t.cancellationDateMs ?? 0,
            upgraded: t.isUpgraded, source: reporter.map(source) ?? .unspecified, decisive: decisive)
    }
}
