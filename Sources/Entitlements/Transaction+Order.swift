extension Transaction {
    /// Whether `self` comes before `other` in the one order that means anything for a chain.
    ///
    /// Apple's array order is neither chronological nor stable, so recency is decided by
    /// `expires_date_ms`, then `purchase_date_ms`, then `transaction_id`. A missing expiry sorts
    /// as 0: a subscription transaction without one cannot be the period that grants access.
    public func isOrdered(before other: Transaction) -> Bool {
        let expires = expiresDateMs ?? 0
        let otherExpires = other.expiresDateMs ?? 0
        if expires != otherExpires { return expires < otherExpires }
        if purchaseDateMs != other.purchaseDateMs { return purchaseDateMs < other.purchaseDateMs }
        return Transaction.id(transactionID, precedes: other.transactionID)
    }

    /// Orders Apple ids numerically without parsing them: they are decimal strings that
    /// exceed 2^53, so a shorter id is a smaller number ("9" before "10"). Any other string
    /// still gets a total, deterministic order.
    public static func id(_ id: String, precedes other: String) -> Bool {
        let count = id.utf8.count
        let otherCount = other.utf8.count
        if count != otherCount { return count < otherCount }
        return id.utf8.lexicographicallyPrecedes(other.utf8)
    }

    /// A refund or revocation: Apple says to treat the purchase as if it never happened.
    ///
    /// Apple also sets `cancellation_date_ms` on a transaction that was upgraded (the time of
    /// the upgrade), so an upgraded transaction is not a refund: it must not make its chain
    /// REVOKED.
    var isRefunded: Bool { cancellationDateMs != nil && !isUpgraded }

    /// Whether the transaction can be the period a chain's state rests on, with facts known
    /// up to `t` (`Int64.max` at now: every upgrade Apple reported counts).
    ///
    /// Refunds are retroactive (never purchased), whatever their date. An upgrade is not: it
    /// ends the transaction at the upgrade time, which Apple records in `cancellation_date_ms`,
    /// so a historical query before the upgrade still sees the old plan (the new plan was not
    /// bought yet). Without that date we cannot place the upgrade and exclude it outright.
    func isEligible(at t: Int64) -> Bool {
        guard let cancelledAt = cancellationDateMs else { return !isUpgraded }
        return isUpgraded && cancelledAt > t
    }
}
