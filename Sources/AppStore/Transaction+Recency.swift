import Entitlements

extension Transaction {
    /// Whether `self` is older than `other` in the one order that means anything for a chain.
    ///
    /// Apple's array order is neither chronological nor stable, so recency is decided by
    /// `expires_date_ms`, then `purchase_date_ms`, then `transaction_id` compared as a number
    /// (a shorter decimal id is smaller; ids exceed 2^53 and are never parsed). This mirrors
    /// the internal order in `Entitlements`, which is not public.
    func isOlder(than other: Transaction) -> Bool {
        let expires = expiresDateMs ?? 0
        let otherExpires = other.expiresDateMs ?? 0
        if expires != otherExpires { return expires < otherExpires }
        if purchaseDateMs != other.purchaseDateMs { return purchaseDateMs < other.purchaseDateMs }
        return Self.appleID(transactionID, precedes: other.transactionID)
    }

    /// Orders decimal id strings numerically without parsing them; any other strings still
    /// get a total, deterministic order.
    static func appleID(_ id: String, precedes other: String) -> Bool {
        if id.utf8.count != other.utf8.count { return id.utf8.count < other.utf8.count }
        return id.utf8.lexicographicallyPrecedes(other.utf8)
    }

    /// The deterministic order results are returned in: by chain, then oldest first.
    static func chainOrder(_ lhs: Transaction, _ rhs: Transaction) -> Bool {
        if lhs.originalTransactionID != rhs.originalTransactionID {
            return appleID(lhs.originalTransactionID, precedes: rhs.originalTransactionID)
        }
        return lhs.isOlder(than: rhs)
    }
}
