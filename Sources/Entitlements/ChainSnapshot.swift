/// One chain (the transactions sharing an `original_transaction_id`) as it stood at an instant.
///
/// Holds array positions rather than copies: the rules run on every check, and a transaction
/// carries a dozen strings whose retain/release would dominate the cost.
struct ChainSnapshot {
    /// The chain's newest counted transaction, refunded or not: it says whether the chain ended
    /// in a refund.
    private let newest: Int
    /// The period the state rests on: the newest counted transaction that can grant access.
    private let latest: Int?

    /// `nil` when no transaction of the chain counts at `time`: asked about an instant before
    /// the chain's first purchase, the chain did not exist yet, so it has no entitlement at all
    /// (not even an expired one).
    ///
    /// Which transactions count is ``EvaluationTime``'s business: at now, all of them (a
    /// purchase Apple dates a second ahead of our clock, a renewal charged before its period
    /// starts); at an explicit instant, those purchased by then, with upgrades judged at it too.
    init?(chainStartingAt first: Int, in transactions: [Transaction], at time: EvaluationTime) {
        let horizon = time.factsUpToMs
        let chainID = transactions[first].originalTransactionID
        var newest = -1
        var latest = -1
        for index in first..<transactions.endIndex
        where Self.counts(index, in: transactions, chainID: chainID, upTo: horizon) {
            if newest < 0 || transactions[newest].isOrdered(before: transactions[index]) {
                newest = index
            }
            if transactions[index].isEligible(at: horizon),
               latest < 0 || transactions[latest].isOrdered(before: transactions[index]) {
                latest = index
            }
        }
        guard newest >= 0 else { return nil }
        self.newest = newest
        self.latest = latest < 0 ? nil : latest
    }

    /// Whether `transactions[index]` belongs to the chain `chainID` and had happened by
    /// `factsUpToMs`. Takes the position, not the transaction: passing a whole transaction
    /// copies it, which the check's hot path would pay for every transaction of every chain.
    static func counts(_ index: Int, in transactions: [Transaction], chainID: String, upTo factsUpToMs: Int64) -> Bool {
        transactions[index].purchaseDateMs <= factsUpToMs && transactions[index].originalTransactionID == chainID
    }

    /// The chain's entitlement at `time` (`t` below is its instant), the rule that decided its
    /// state and the transaction that rule rests on; `nil` for consumables, which are used up
    /// and grant nothing (their history is the store's business).
    ///
    /// The state is read off the rule (``EntitlementRule/state``), so CheckEntitlement and
    /// ExplainEntitlement cannot disagree: both take this one decision. The rule and the
    /// decisive position go to `recorder`; the check passes ``IgnoredDecision``, which the
    /// compiler specializes away. (Returning them in a struct beside the entitlement made the
    /// check copy that struct twice per chain: 5 % more instructions, Benchmarks/rules-ab.sh.)
    ///
    /// The first rule that holds decides the state:
    /// 1. ACTIVE: `latest` exists and covers `t` (its expiry is after `t`; a non-consumable
    ///    always covers it). A grace period in the renewal info does not matter then.
    /// 2. GRACE_PERIOD: auto-renewable, `latest` expired, renewal info's grace expiry after `t`:
    ///    Apple is retrying the charge and the customer keeps access meanwhile.
    /// 3. REVOKED: the chain's newest transaction was refunded and nothing above holds. This
    ///    also covers a chain whose every transaction was refunded.
    /// 4. BILLING_RETRY: auto-renewable, `latest` expired, renewal info says Apple is retrying.
    /// 5. EXPIRED: everything else (``EntitlementRule/periodEnded``), including a chain whose
    ///    every transaction was upgraded away (``EntitlementRule/upgradedAway``): the access
    ///    moved to the upgrade's transaction, so this chain must not show as active, yet
    ///    nothing was refunded either.
    ///
    /// Rule 3 rests on the newest transaction (the refund); the others on `latest`, or on the
    /// newest when no transaction can grant.
    ///
    /// Fields (product, expiry, purchase date, trial and intro flags, group, environment,
    /// latest_transaction_id) come from `latest`, or from the newest transaction when no
    /// transaction can grant (all refunded or upgraded), so the answer still names what ended
    /// it. `purchased_at_ms` is that transaction's purchase: when the current period was bought.
    func entitlement<Recorder: DecisionRecorder>(
        in transactions: [Transaction], renewalInfos: [String: RenewalInfo], catalog: Catalog,
        at time: EvaluationTime, recordingInto recorder: inout Recorder
    ) -> Entitlement? {
        let t = time.instantMs
        // The subject is read in place, field by field: a copy of the whole transaction would
        // retain and release every one of its strings on each check.
        let s = latest ?? newest
        let entry = catalog.entry(for: transactions[s].productID)
        let productType = Self.productType(of: transactions[s], entry: entry)
        let expiresAtMs: Int64
        switch productType {
        // A catalog never says promotional (grants have no product), so never here.
        case .consumable, .promotional: return nil
        case .nonConsumable: expiresAtMs = 0
        case .nonRenewing: expiresAtMs = Self.nonRenewingExpiry(of: transactions[s], entry: entry)
        case .autoRenewable: expiresAtMs = transactions[s].expiresDateMs ?? 0
        }
        let renewal = productType == .autoRenewable
            ? Self.renewalInfo(for: transactions[s].originalTransactionID, in: renewalInfos, upTo: time.factsUpToMs)
            : nil

        let rule: EntitlementRule
        if latest != nil, productType == .nonConsumable || expiresAtMs > t {
            rule = .periodCovers
        } else if latest != nil, let grace = renewal?.gracePeriodExpiresDateMs, grace > t {
            rule = .gracePeriod
        } else if transactions[newest].isRefunded {
            rule = .refunded
        } else if latest != nil, renewal?.isInBillingRetryPeriod == true {
            rule = .billingRetry
        } else {
            rule = latest == nil ? .upgradedAway : .periodEnded
        }
        recorder.record(rule, decisive: rule == .refunded ? newest : latest ?? newest)

        return Entitlement(
            productID: transactions[s].productID, originalTransactionID: transactions[s].originalTransactionID,
            state: rule.state, purchasedAtMs: transactions[s].purchaseDateMs, expiresAtMs: expiresAtMs,
            gracePeriodExpiresAtMs: renewal?.gracePeriodExpiresDateMs ?? 0,
            willAutoRenew: renewal?.autoRenewStatus ?? false,
            isTrialPeriod: transactions[s].isTrialPeriod, isInIntroOfferPeriod: transactions[s].isInIntroOfferPeriod,
            productType: productType, subscriptionGroupID: transactions[s].subscriptionGroupIdentifier ?? "",
            environment: transactions[s].environment, latestTransactionID: transactions[s].transactionID,
            entitlementID: entry?.entitlementID ?? transactions[s].productID)
    }

    /// The catalog wins, being the app's own statement; then the type Apple declared (StoreKit 2
    /// data); then the shape: an expiry means an auto-renewable, none means a non-consumable.
    /// Shape cannot reveal a non-renewing subscription or a consumable, hence the catalog.
    static func productType(of transaction: Transaction, entry: CatalogEntry?) -> ProductType {
        if let entry { return entry.productType }
        if let declared = transaction.declaredProductType { return declared }
        return transaction.expiresDateMs == nil ? .nonConsumable : .autoRenewable
    }

    /// Apple does not track a non-renewing subscription's end; the catalog's duration does.
    ///
    /// Without an entry (Apple declared the type, the catalog forgot it) an expiry Apple sent is
    /// used, else the purchase instant: granting nothing fails closed, where guessing a span
    /// or granting forever would give away paid access.
    static func nonRenewingExpiry(of transaction: Transaction, entry: CatalogEntry?) -> Int64 {
        guard let duration = entry?.durationMs else {
            return transaction.expiresDateMs ?? transaction.purchaseDateMs
        }
        let (end, overflow) = transaction.purchaseDateMs.addingReportingOverflow(duration)
        return overflow ? .max : end
    }

    /// The chain's renewal info as it was known by `factsUpToMs`, for auto-renewables only.
    ///
    /// The store keeps only the newest renewal info per chain; one signed after an explicit
    /// instant describes a later moment (a retry or grace period that started after it, a later
    /// auto-renew toggle), so a historical query ignores it rather than project today's state
    /// backwards. At now every one counts, whatever Apple's clock said when it signed.
    static func renewalInfo(
        for chainID: String, in renewalInfos: [String: RenewalInfo], upTo factsUpToMs: Int64
    ) -> RenewalInfo? {
        guard !renewalInfos.isEmpty, let info = renewalInfos[chainID], info.signedDateMs <= factsUpToMs else {
            return nil
        }
        return info
    }
}
