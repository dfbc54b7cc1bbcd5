import Entitlements

extension Simulation {
    /// A customer buys a product now. An auto-renewable starts a subscription chain
    /// (SUBSCRIBED/INITIAL_BUY, V1 INITIAL_BUY); anything else is a one-time charge, which V2
    /// reports as ONE_TIME_CHARGE and V1 not at all.
    public mutating func purchase(_ request: PurchaseRequest) throws(SimulatorError) -> Outcome {
        guard !request.productID.isEmpty else { throw SimulatorError(.invalidArgument, "product_id is required") }
        let accountID = request.userToken ?? makeAnonymousCustomer()
        if let existing = accounts[accountID], existing.environment != request.environment {
            throw SimulatorError(
                .conflict,
                "customer \(accountID) is a \(existing.environment.rawValue) customer; "
                    + "a receipt lives in one environment"
            )
        }
        let now = nowMs
        var periodMs: Int64?
        if request.type == .autoRenewable {
            let period = request.periodMs ?? configuration.defaultPeriodMs
            guard period >= Self.minimumPeriodMs else {
                throw SimulatorError(.invalidArgument, "period must be at least \(Self.minimumPeriodMs) ms")
            }
            periodMs = period
        }
        let id = makeTransactionID()
        let transaction = Transaction(
            transactionID: id, originalTransactionID: id, productID: request.productID,
            purchaseDateMs: now, expiresDateMs: periodMs.map { now + $0 },
            isTrialPeriod: request.offer == .freeTrial, isInIntroOfferPeriod: request.offer == .introductory,
            subscriptionGroupIdentifier: periodMs == nil ? nil : configuration.subscriptionGroupIdentifier,
            webOrderLineItemID: periodMs == nil ? nil : makeTransactionID(),
            inAppOwnershipType: "PURCHASED", appAccountToken: request.appAccountToken,
            environment: request.environment, declaredProductType: request.type)
        accounts[accountID, default: SimulatedAccount(id: accountID, environment: request.environment)]
            .transactions.append(transaction)
        owners[id] = accountID
        touch(id)
        if let periodMs {
            subscriptions[id] = SimulatedSubscription(
                originalTransactionID: id, accountID: accountID, productID: request.productID,
                autoRenewProductID: request.productID, periodMs: periodMs, latestTransactionID: id,
                expiresDateMs: now + periodMs, recentSubscriptionStartMs: now)
        }
        let receipt = issueReceipt(for: accountID, at: now)
        let event = periodMs == nil
            ? self.event("ONE_TIME_CHARGE", nil, v1: nil, about: transaction, at: now)
            : self.event("SUBSCRIBED", "INITIAL_BUY", v1: "INITIAL_BUY", about: transaction, at: now)
        return Outcome(transaction: transaction, receiptData: receipt, events: [event])
    }

    /// Apple refunds one transaction now: it reads as never purchased (REFUND; V1 CANCEL with
    /// `cancellation_date_ms`). Refunding a subscription's current period revokes the chain:
    /// it stops renewing.
    public mutating func refund(transactionID: String) throws(SimulatorError) -> Outcome {
        guard var transaction = transaction(transactionID) else {
            throw SimulatorError(.notFound, "no transaction \(transactionID)")
        }
        guard transaction.cancellationDateMs == nil else {
            throw SimulatorError(.conflict, "transaction \(transactionID) is already refunded or upgraded")
        }
        let now = nowMs
        transaction.cancellationDateMs = now
        update(transaction)
        if var chain = subscriptions[transaction.originalTransactionID], chain.latestTransactionID == transactionID {
            chain.hasEnded = true
            chain.endedByRefund = true
            chain.autoRenew = false
            chain.isInBillingRetry = false
            subscriptions[chain.originalTransactionID] = chain
        }
        let event = self.event("REFUND", nil, v1: "CANCEL", about: transaction, at: now, cancellationDateMs: now)
        return Outcome(transaction: transaction, receiptData: receiptData(of: transactionID), events: [event])
    }

    /// Apple reverses an earlier refund (REFUND_REVERSED; V1 has no such notification). A
    /// revoked chain whose period has not ended resumes renewing.
    public mutating func reverseRefund(transactionID: String) throws(SimulatorError) -> Outcome {
        guard var transaction = transaction(transactionID) else {
            throw SimulatorError(.notFound, "no transaction \(transactionID)")
        }
        guard transaction.cancellationDateMs != nil, !transaction.isUpgraded else {
            throw SimulatorError(.conflict, "transaction \(transactionID) is not refunded")
        }
        let now = nowMs
        transaction.cancellationDateMs = nil
        update(transaction)
        if var chain = subscriptions[transaction.originalTransactionID], chain.endedByRefund,
           chain.latestTransactionID == transactionID {
            chain.endedByRefund = false
            chain.hasEnded = now >= chain.expiresDateMs
            chain.autoRenew = !chain.hasEnded
            subscriptions[chain.originalTransactionID] = chain
        }
        let event = self.event("REFUND_REVERSED", nil, v1: nil, about: transaction, at: now)
        return Outcome(transaction: transaction, receiptData: receiptData(of: transactionID), events: [event])
    }

    /// The latest receipt of the customer who owns `transactionID`.
    func receiptData(of transactionID: String) -> String? {
        owners[transactionID].flatMap { accounts[$0]?.latestReceipt }
    }
}
