import Entitlements

extension Simulation {
    /// What falls due for one subscription, and when.
    enum DueAction {
        case renew, failBilling, expireVoluntarily, gracePeriodExpired, billingRetryExhausted
    }

    func nextDue(_ chain: SimulatedSubscription) -> (atMs: Int64, action: DueAction)? {
        if chain.hasEnded { return nil }
        if chain.isInBillingRetry {
            let retryEnds = chain.expiresDateMs + SimulatedSubscription.billingRetryMs
            if let grace = chain.gracePeriodExpiresDateMs, !chain.gracePeriodExpiryReported, grace < retryEnds {
                return (grace, .gracePeriodExpired)
            }
            return (retryEnds, .billingRetryExhausted)
        }
        if !chain.autoRenew { return (chain.expiresDateMs, .expireVoluntarily) }
        return (chain.expiresDateMs, chain.billingWillFail ? .failBilling : .renew)
    }

    /// Runs, in time order, everything due at or before `limitMs`; each event is dated at the
    /// instant it fell due, not at the end of the jump.
    mutating func processDue(until limitMs: Int64) -> [SimulatedEvent] {
        var events: [SimulatedEvent] = []
        while events.count < Self.maximumEventsPerAction {
            let due = subscriptions.values.compactMap { chain in nextDue(chain).map { (chain, $0) } }
                .filter { $0.1.atMs <= limitMs }
                .min { ($0.1.atMs, $0.0.originalTransactionID) < ($1.1.atMs, $1.0.originalTransactionID) }
            guard let (chain, (atMs, action)) = due else { break }
            events.append(run(action, on: chain, at: atMs))
        }
        return events
    }

    private mutating func run(
        _ action: DueAction, on original: SimulatedSubscription, at unixMs: Int64
    ) -> SimulatedEvent {
        var chain = original
        let latest = transaction(chain.latestTransactionID)!
        switch action {
        case .renew:
            let renewal = appendRenewal(to: &chain, purchasedAt: chain.expiresDateMs)
            return event("DID_RENEW", nil, v1: "DID_RENEW", about: renewal, at: unixMs)
        case .failBilling:
            chain.billingWillFail = false
            chain.isInBillingRetry = true
            chain.expirationIntent = 2
            chain.gracePeriodExpiresDateMs = chain.pendingGraceMs.map { chain.expiresDateMs + $0 }
            chain.gracePeriodExpiryReported = false
            chain.pendingGraceMs = nil
            subscriptions[chain.originalTransactionID] = chain
            let subtype = chain.gracePeriodExpiresDateMs == nil ? nil : "GRACE_PERIOD"
            return event("DID_FAIL_TO_RENEW", subtype, v1: "DID_FAIL_TO_RENEW", about: latest, at: unixMs)
        case .gracePeriodExpired:
            chain.gracePeriodExpiryReported = true
            subscriptions[chain.originalTransactionID] = chain
            return event("GRACE_PERIOD_EXPIRED", nil, v1: nil, about: latest, at: unixMs)
        case .billingRetryExhausted:
            chain.hasEnded = true
            chain.isInBillingRetry = false
            chain.autoRenew = false
            subscriptions[chain.originalTransactionID] = chain
            return event("EXPIRED", "BILLING_RETRY", v1: nil, about: latest, at: unixMs)
        case .expireVoluntarily:
            chain.hasEnded = true
            chain.expirationIntent = chain.expirationIntent ?? 1
            subscriptions[chain.originalTransactionID] = chain
            return event("EXPIRED", "VOLUNTARY", v1: nil, about: latest, at: unixMs)
        }
    }

    /// Adds the chain's next period (of its auto-renew product, so a downgrade takes effect),
    /// stores the chain, and issues the customer a new receipt.
    mutating func appendRenewal(to chain: inout SimulatedSubscription, purchasedAt unixMs: Int64) -> Transaction {
        let previous = transaction(chain.latestTransactionID)!
        let id = makeTransactionID()
        let renewal = Transaction(
            transactionID: id, originalTransactionID: chain.originalTransactionID,
            productID: chain.autoRenewProductID, purchaseDateMs: unixMs,
            originalPurchaseDateMs: previous.originalPurchaseDateMs, expiresDateMs: unixMs + chain.periodMs,
            subscriptionGroupIdentifier: previous.subscriptionGroupIdentifier,
            webOrderLineItemID: makeTransactionID(), inAppOwnershipType: previous.inAppOwnershipType,
            appAccountToken: previous.appAccountToken, environment: previous.environment,
            declaredProductType: .autoRenewable)
        accounts[chain.accountID]?.transactions.append(renewal)
        owners[id] = chain.accountID
        touch(id)
        chain.productID = chain.autoRenewProductID
        chain.latestTransactionID = id
        chain.expiresDateMs = unixMs + chain.periodMs
        subscriptions[chain.originalTransactionID] = chain
        _ = issueReceipt(for: chain.accountID, at: unixMs)
        return renewal
    }
}
