import Entitlements

extension Simulation {
    /// The subscription renews at the end of its current period: simulated time moves there
    /// (running whatever else falls due on the way) and DID_RENEW happens.
    public mutating func renew(originalTransactionID: String) throws(SimulatorError) -> Outcome {
        let chain = try activeChain(originalTransactionID)
        guard chain.autoRenew else { throw SimulatorError(.conflict, "auto-renew is off; turn it on first") }
        guard !chain.isInBillingRetry else {
            throw SimulatorError(.conflict, "the subscription is in billing retry; recover it instead")
        }
        guard !chain.billingWillFail else { throw SimulatorError(.conflict, "the next renewal is set to fail billing") }
        let events = advance(to: chain.expiresDateMs) + processDue(until: nowMs)
        return outcome(originalTransactionID, events)
    }

    /// The next renewal's billing fails. Unless `deferred`, time moves to it now, and
    /// DID_FAIL_TO_RENEW (GRACE_PERIOD when `graceMs` is set) happens; Apple then retries for
    /// up to 60 days, and the grace period, if any, ends with GRACE_PERIOD_EXPIRED.
    public mutating func failBilling(
        originalTransactionID: String, graceMs: Int64?, deferred: Bool = false
    ) throws(SimulatorError) -> Outcome {
        var chain = try activeChain(originalTransactionID)
        guard !chain.isInBillingRetry else {
            throw SimulatorError(.conflict, "the subscription is already in billing retry")
        }
        guard chain.autoRenew else { throw SimulatorError(.conflict, "auto-renew is off: there is no renewal to fail") }
        chain.billingWillFail = true
        chain.pendingGraceMs = graceMs
        subscriptions[originalTransactionID] = chain
        let events = deferred ? [] : advance(to: chain.expiresDateMs) + processDue(until: nowMs)
        return outcome(originalTransactionID, events)
    }

    /// Billing succeeds again now: DID_RENEW/BILLING_RECOVERY (V1 DID_RECOVER). Within the grace
    /// period the renewal date does not move (the period starts at the old expiry); after it,
    /// the new period starts now.
    public mutating func recoverBilling(originalTransactionID: String) throws(SimulatorError) -> Outcome {
        var chain = try activeChain(originalTransactionID)
        guard chain.isInBillingRetry else {
            throw SimulatorError(.conflict, "the subscription is not in billing retry")
        }
        let now = nowMs
        let withinGrace = chain.gracePeriodExpiresDateMs.map { now < $0 } ?? false
        chain.isInBillingRetry = false
        chain.gracePeriodExpiresDateMs = nil
        chain.gracePeriodExpiryReported = false
        chain.expirationIntent = nil
        let renewal = appendRenewal(to: &chain, purchasedAt: withinGrace ? chain.expiresDateMs : now)
        let event = self.event("DID_RENEW", "BILLING_RECOVERY", v1: "DID_RECOVER", about: renewal, at: now)
        return outcome(originalTransactionID, [event])
    }

    /// The customer turns auto-renew on or off (DID_CHANGE_RENEWAL_STATUS).
    public mutating func setAutoRenew(originalTransactionID: String, enabled: Bool) throws(SimulatorError) -> Outcome {
        var chain = try activeChain(originalTransactionID)
        guard chain.autoRenew != enabled else {
            throw SimulatorError(.conflict, "auto-renew is already \(enabled ? "on" : "off")")
        }
        let now = nowMs
        chain.autoRenew = enabled
        if !chain.isInBillingRetry { chain.expirationIntent = enabled ? nil : 1 }
        subscriptions[originalTransactionID] = chain
        let latest = transaction(chain.latestTransactionID)!
        let event = self.event("DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED",
                               v1: "DID_CHANGE_RENEWAL_STATUS", about: latest, at: now)
        return outcome(originalTransactionID, [event])
    }

    /// The customer switches product within the group. An upgrade takes effect now: the
    /// current transaction is cancelled with `is_upgraded` and a new period of the new product
    /// starts (DID_CHANGE_RENEWAL_PREF/UPGRADE; V1 INTERACTIVE_RENEWAL). A downgrade only
    /// changes what the next renewal buys (DID_CHANGE_RENEWAL_PREF/DOWNGRADE, both versions).
    public mutating func changeProduct(
        originalTransactionID: String, to productID: String, downgrade: Bool
    ) throws(SimulatorError) -> Outcome {
        var chain = try activeChain(originalTransactionID)
        guard !productID.isEmpty, productID != chain.productID else {
            throw SimulatorError(
                .invalidArgument, "the new product must differ from the current one (\(chain.productID))")
        }
        let now = nowMs
        if downgrade {
            chain.autoRenewProductID = productID
            subscriptions[originalTransactionID] = chain
            let latest = transaction(chain.latestTransactionID)!
            let event = self.event(
                "DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", v1: "DID_CHANGE_RENEWAL_PREF", about: latest, at: now)
            return outcome(originalTransactionID, [event])
        }
        var replaced = transaction(chain.latestTransactionID)!
        replaced.cancellationDateMs = now
        replaced.isUpgraded = true
        update(replaced)
        chain.autoRenewProductID = productID
        let upgrade = appendRenewal(to: &chain, purchasedAt: now)
        let event = self.event("DID_CHANGE_RENEWAL_PREF", "UPGRADE", v1: "INTERACTIVE_RENEWAL", about: upgrade, at: now)
        return outcome(originalTransactionID, [event])
    }

    /// The subscription lapses: auto-renew goes off (DID_CHANGE_RENEWAL_STATUS when it was on)
    /// and, unless `deferred`, time moves to the end of the period, where EXPIRED/VOLUNTARY
    /// happens. In billing retry Apple gives up at once (EXPIRED/BILLING_RETRY).
    public mutating func expire(originalTransactionID: String, deferred: Bool = false) throws(SimulatorError) -> Outcome
    {
        var chain = try activeChain(originalTransactionID)
        var events: [SimulatedEvent] = []
        if chain.isInBillingRetry {
            chain.hasEnded = true
            chain.isInBillingRetry = false
            chain.autoRenew = false
            subscriptions[originalTransactionID] = chain
            let latest = transaction(chain.latestTransactionID)!
            events.append(event("EXPIRED", "BILLING_RETRY", v1: nil, about: latest, at: nowMs))
            return outcome(originalTransactionID, events)
        }
        if chain.autoRenew {
            events += try setAutoRenew(originalTransactionID: originalTransactionID, enabled: false).events
        }
        chain = try self.subscription(originalTransactionID)
        chain.billingWillFail = false
        subscriptions[originalTransactionID] = chain
        if !deferred {
            events += advance(to: chain.expiresDateMs) + processDue(until: nowMs)
        }
        return outcome(originalTransactionID, events)
    }

    /// The chain, if it can still change: not expired, not revoked.
    private func activeChain(_ originalTransactionID: String) throws(SimulatorError) -> SimulatedSubscription {
        let chain = try subscription(originalTransactionID)
        guard !chain.hasEnded else {
            throw SimulatorError(
                .conflict,
                "subscription \(originalTransactionID) has "
                    + "\(chain.endedByRefund ? "been refunded" : "expired"); purchase again"
            )
        }
        return chain
    }

    /// The chain's newest transaction and the customer's latest receipt, with `events`.
    func outcome(_ originalTransactionID: String, _ events: [SimulatedEvent]) -> Outcome {
        let latest = subscriptions[originalTransactionID].flatMap { transaction($0.latestTransactionID) }
        return Outcome(transaction: latest, receiptData: receiptData(of: originalTransactionID), events: events)
    }
}
