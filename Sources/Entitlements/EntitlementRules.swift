/// The pure entitlement rules: what a user's stored facts grant at an instant.
///
/// Pure and stdlib-only because they run on every check (a budget of a microsecond or two)
/// and because state is always derived from facts, never stored: a late or replayed fact
/// changes the answer the same way whenever it arrives. Each chain is judged on its own by
/// ``ChainSnapshot``; non-consumables and non-renewing purchases are chains of their own, as
/// Apple gives each purchase its own `original_transaction_id`. An upgrade that Apple filed
/// under a new `original_transaction_id` is simply another chain; one that kept the old id
/// is the chain's newest eligible transaction. Either way the upgraded plan stops granting.
public enum EntitlementRules {
    /// Every entitlement the user has at `time`, one per chain that counts then, in list order:
    /// active first (callers read the head), then those that never expire, then by expiry,
    /// latest first, then by product id and original transaction id so the order is total.
    public static func entitlements(
        for facts: UserFacts, at time: EvaluationTime, catalog: Catalog
    ) -> [Entitlement] {
        var entitlements = unordered(facts, at: time, catalog: catalog)
        entitlements.sort(by: listOrder)
        return entitlements
    }

    /// CheckEntitlement: the entitlements matching `productID` and `entitlementID` at `time`.
    ///
    /// An empty filter matches anything; when both are given both must match, as filters
    /// narrow everywhere else (and "pro.monthly or anything granting pro" is better asked as
    /// just "pro"). The entitlement id is the catalog's, else the product id itself.
    public static func check(
        _ facts: UserFacts, productID: String, entitlementID: String, at time: EvaluationTime,
        catalog: Catalog
    ) -> EntitlementCheck {
        // Filtered as each entitlement is made, and `active` read off each element's stored
        // state: removeAll and contains(where:) copy every element they look at (a retain and a
        // release per string), which the check would pay on every call.
        var entitlements = unordered(facts, at: time, catalog: catalog, productID: productID,
                                     entitlementID: entitlementID)
        entitlements.sort(by: listOrder)
        let active = entitlements.indices.contains { entitlements[$0].state.grantsAccess }
        var sameAnswerMs = sameAnswer(entitlements, at: time)
        // A grant that has not started is in no answer yet, but its start changes the answer.
        for grant in facts.grants where grant.startsAtMs > time.instantMs && sameAnswerMs.upperBound >= grant.startsAtMs
            && grantMatches(grant, productID: productID, entitlementID: entitlementID, catalog: catalog) {
            sameAnswerMs = sameAnswerMs.lowerBound...max(sameAnswerMs.lowerBound, grant.startsAtMs - 1)
        }
        return EntitlementCheck(active: active, entitlements: entitlements, evaluatedAtMs: time.instantMs,
                                sameAnswerMs: sameAnswerMs)
    }

    /// The instants at which ``check(_:productID:entitlementID:at:catalog:)`` gives `entitlements`
    /// again, time stamp aside (``EntitlementCheck/sameAnswerMs``).
    ///
    /// At now every fact counts whatever the instant, and the instant enters the rules only
    /// through ``ChainSnapshot``'s two comparisons `expiresAtMs > t` (rule 1) and
    /// `gracePeriodExpiresAtMs > t` (rule 2), with the very values each entitlement carries;
    /// list order and `active` follow from the states. So the answer stays while no such value
    /// lies between the instants: from the latest one at or before `t` up to just before the
    /// earliest one after it. Chains the filters dropped do not matter; consumables have none.
    /// At an explicit instant which facts count moves with it: that instant alone.
    static func sameAnswer(_ entitlements: [Entitlement], at time: EvaluationTime) -> ClosedRange<Int64> {
        let t = time.instantMs
        guard time.factsUpToMs == .max else { return t...t }
        var lower = Int64.min
        var upper = Int64.max
        func narrow(by boundary: Int64) {
            if boundary > t { upper = min(upper, boundary - 1) } else { lower = max(lower, boundary) }
        }
        for index in entitlements.indices {
            narrow(by: entitlements[index].expiresAtMs)
            narrow(by: entitlements[index].gracePeriodExpiresAtMs)
        }
        return lower...upper
    }

    /// The entitlements of every chain that counts at `time` and matches the filters (empty
    /// filters match anything), in no particular order.
    private static func unordered(
        _ facts: UserFacts, at time: EvaluationTime, catalog: Catalog, productID: String = "",
        entitlementID: String = ""
    ) -> [Entitlement] {
        let transactions = facts.transactions
        var entitlements: [Entitlement] = []
        var ignored = IgnoredDecision()
        for first in transactions.indices where startsChain(at: first, in: transactions) {
            guard let chain = ChainSnapshot(chainStartingAt: first, in: transactions, at: time),
                  let entitlement = chain.entitlement(
                      in: transactions, renewalInfos: facts.renewalInfos, catalog: catalog, at: time,
                      recordingInto: &ignored)
            else { continue }
            if matches(entitlement, productID: productID, entitlementID: entitlementID) {
                entitlements.append(entitlement)
            }
        }
        for grant in facts.grants where grantMatches(grant, productID: productID, entitlementID: entitlementID,
                                                     catalog: catalog) {
            if let entitlement = grant.entitlement(at: time) { entitlements.append(entitlement) }
        }
        return entitlements
    }

    /// The check's filters for a grant, which has no product: a product filter matches when
    /// the catalog maps that product to the grant's entitlement (without a catalog entry, when
    /// the product id is the entitlement id, as a product's entitlement id is then its own).
    static func grantMatches(_ grant: Grant, productID: String, entitlementID: String, catalog: Catalog) -> Bool {
        (productID.isEmpty || (catalog.entry(for: productID)?.entitlementID ?? productID) == grant.entitlementID)
            && (entitlementID.isEmpty || grant.entitlementID == entitlementID)
    }

    /// The check's filters: an empty one matches anything.
    @inline(__always)
    static func matches(_ entitlement: Entitlement, productID: String, entitlementID: String) -> Bool {
        (productID.isEmpty || entitlement.productID == productID)
            && (entitlementID.isEmpty || entitlement.entitlementID == entitlementID)
    }

    /// Whether `index` is its chain's first position in the array, so each chain is judged once.
    /// A user has a handful of transactions: comparing short ids beats building a dictionary.
    static func startsChain(at index: Int, in transactions: [Transaction]) -> Bool {
        let chainID = transactions[index].originalTransactionID
        for earlier in 0..<index where transactions[earlier].originalTransactionID == chainID {
            return false
        }
        return true
    }

    static func listOrder(_ a: Entitlement, _ b: Entitlement) -> Bool {
        if a.isActive != b.isActive { return a.isActive }
        let aEnd = a.isActive && a.expiresAtMs == 0 ? Int64.max : a.expiresAtMs
        let bEnd = b.isActive && b.expiresAtMs == 0 ? Int64.max : b.expiresAtMs
        if aEnd != bEnd { return aEnd > bEnd }
        if a.productID != b.productID { return a.productID < b.productID }
        return Transaction.id(a.originalTransactionID, precedes: b.originalTransactionID)
    }
}
