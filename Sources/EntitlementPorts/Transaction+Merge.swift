import Entitlements

/// How a stored transaction absorbs another copy of itself: part of the repository contract,
/// so every backend keeps the same facts whatever order and number of copies arrive in.
extension Transaction {
    /// The stored transaction updated with what `incoming` adds, never taking anything away.
    ///
    /// A late or replayed copy without a cancellation or upgrade must not clear them: a
    /// cancellation date, once seen, stays (only a refund reversal, recorded apart, removes
    /// one); `isUpgraded` only turns on; absent optional fields are filled in. Of two
    /// cancellation dates the later wins: two mean Apple refunded, reversed and refunded again,
    /// and keeping the later makes the result independent of arrival order. Of two expiries the
    /// later wins too: Apple moves a period's end only later (a renewal-date extension rewrites
    /// the current transaction's `expiresDate`), so the later one is the newer fact whatever
    /// order copies arrive in. Everything else is immutable per transaction_id and keeps its
    /// first stored value.
    public func merged(with incoming: Transaction) -> Transaction {
        var merged = self
        if let incomingCancellation = incoming.cancellationDateMs {
            merged.cancellationDateMs = max(cancellationDateMs ?? .min, incomingCancellation)
        }
        if let stored = expiresDateMs, let later = incoming.expiresDateMs {
            merged.expiresDateMs = max(stored, later)
        } else {
            merged.expiresDateMs = expiresDateMs ?? incoming.expiresDateMs
        }
        merged.isUpgraded = isUpgraded || incoming.isUpgraded
        merged.subscriptionGroupIdentifier = subscriptionGroupIdentifier ?? incoming.subscriptionGroupIdentifier
        merged.webOrderLineItemID = webOrderLineItemID ?? incoming.webOrderLineItemID
        merged.inAppOwnershipType = inAppOwnershipType ?? incoming.inAppOwnershipType
        merged.appAccountToken = appAccountToken ?? incoming.appAccountToken
        merged.declaredProductType = declaredProductType ?? incoming.declaredProductType
        return merged
    }
}

extension Transaction {
    /// The transaction as a refund reversal at `reversedAtMs` leaves it: a cancellation dated
    /// at or before the reversal is gone, one dated after it (a new refund) stands. An
    /// upgrade's cancellation date is the upgrade time, not a refund, so a reversal never
    /// touches it. `nil` (never reversed) changes nothing.
    public func withRefundReversed(at reversedAtMs: Int64?) -> Transaction {
        guard let reversedAtMs, let cancelledAt = cancellationDateMs, cancelledAt <= reversedAtMs,
              !isUpgraded else { return self }
        var reversed = self
        reversed.cancellationDateMs = nil
        return reversed
    }
}
