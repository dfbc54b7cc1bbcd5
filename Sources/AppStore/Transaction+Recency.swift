import Entitlements

extension Transaction {
    /// The deterministic order results are returned in: by chain, then oldest first (the
    /// chain order of ``Transaction/isOrdered(before:)``, shared with the entitlement rules).
    static func chainOrder(_ lhs: Transaction, _ rhs: Transaction) -> Bool {
        if lhs.originalTransactionID != rhs.originalTransactionID {
            return Transaction.id(lhs.originalTransactionID, precedes: rhs.originalTransactionID)
        }
        return lhs.isOrdered(before: rhs)
    }
}
