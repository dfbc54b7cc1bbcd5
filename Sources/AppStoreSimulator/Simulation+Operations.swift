import Entitlements
import Foundation

/// One renewal-date extension Apple made, kept by its `requestIdentifier`.
struct SimulatedRenewalExtension: Sendable, Hashable {
    var originalTransactionID: String
    var webOrderLineItemID: String?
    var effectiveDateMs: Int64
    var extendedAtMs: Int64
}

extension Simulation {
    /// Apple allows two extensions of one subscription within a year.
    static let extensionsPerYear = 2

    /// The Server API's Extend a Subscription Renewal Date: the chain's current period ends
    /// `extendByDays` later, and so does everything after it (the renewal moves with it).
    /// Apple notifies RENEWAL_EXTENDED about the extended transaction.
    ///
    /// The same `requestIdentifier` again answers the first extension and changes nothing, as
    /// Apple's idempotency key promises. Apple's errors, in this order: 4000008 (the id is not
    /// digits), 4000009 (days outside 1...90), 4000010 (reason outside 0...3), 4000011 (the
    /// identifier is not a UUID), 4040005 (unknown in this environment), 4030004 (not an
    /// active auto-renewable: ended, or in billing retry), 4030005 (two extensions in a year).
    mutating func extendRenewalDate(
        originalTransactionID: String, extendByDays: Int?, reasonCode: Int?, requestIdentifier: String?,
        environment: Environment
    ) throws(ServerAPIErrorAnswer) -> (SimulatedRenewalExtension, [SimulatedEvent]) {
        guard !originalTransactionID.isEmpty, originalTransactionID.utf8.allSatisfy({ (48...57).contains($0) })
        else { throw .invalidOriginalTransactionID }
        guard let days = extendByDays, (1...90).contains(days) else { throw .invalidExtendByDays }
        guard let reasonCode, (0...3).contains(reasonCode) else { throw .invalidExtendReasonCode }
        guard let requestIdentifier, UUID(uuidString: requestIdentifier) != nil else {
            throw .invalidRequestIdentifier
        }
        if let done = renewalExtensions[requestIdentifier.lowercased()] { return (done, []) }
        guard let owner = owners[originalTransactionID], let account = accounts[owner],
              account.environment == environment else { throw .originalTransactionIDNotFound }
        guard var chain = subscriptions[originalTransactionID], !chain.hasEnded, !chain.isInBillingRetry,
              chain.expiresDateMs > nowMs else { throw .subscriptionExtensionIneligible }
        let yearAgo = nowMs - 365 * SimulatedDuration.day
        let recent = renewalExtensions.values.filter {
            $0.originalTransactionID == originalTransactionID && $0.extendedAtMs > yearAgo
        }
        guard recent.count < Self.extensionsPerYear else { throw .subscriptionMaxExtension }
        chain.expiresDateMs += Int64(days) * SimulatedDuration.day
        subscriptions[originalTransactionID] = chain
        var latest = transaction(chain.latestTransactionID)!
        latest.expiresDateMs = chain.expiresDateMs
        update(latest)
        let done = SimulatedRenewalExtension(
            originalTransactionID: originalTransactionID, webOrderLineItemID: latest.webOrderLineItemID,
            effectiveDateMs: chain.expiresDateMs, extendedAtMs: nowMs)
        renewalExtensions[requestIdentifier.lowercased()] = done
        return (done, [event("RENEWAL_EXTENDED", nil, v1: nil, about: latest, at: nowMs)])
    }

    /// The order id on the invoice of `transactionID`'s purchase: Apple's are ten letters and
    /// digits; the simulator's spell the transaction id in base 36 after "MK", so a lookup
    /// needs no table.
    static func orderID(of transactionID: String) -> String {
        guard let number = Int64(transactionID) else { return "" }
        return "MK" + String(number, radix: 36).uppercased()
    }

    /// The Server API's Look Up Order ID: the transactions of the order in `environment`;
    /// empty when the environment has no such order (Apple's `status` 1).
    func orderTransactions(orderID: String, environment: Environment) -> [Transaction] {
        guard orderID.hasPrefix("MK"), let number = Int64(orderID.dropFirst(2).lowercased(), radix: 36),
              let found = transaction(String(number)), found.environment == environment else { return [] }
        return [found]
    }
}

extension Simulation {
    /// The customer asks Apple for a refund of `transactionID`: Apple sends CONSUMPTION_REQUEST
    /// (V1 too) with `reason`, dated `agoMs` before now (to play a request whose 12 hours are
    /// already over).
    public mutating func requestRefund(transactionID: String, reason: String, agoMs: Int64)
        throws(SimulatorError) -> Outcome {
        guard let transaction = transaction(transactionID) else {
            throw SimulatorError(.notFound, "no transaction \(transactionID)")
        }
        var event = event("CONSUMPTION_REQUEST", nil, v1: "CONSUMPTION_REQUEST", about: transaction,
                          at: nowMs - max(agoMs, 0))
        event.consumptionRequestReason = reason
        return Outcome(transaction: transaction, receiptData: nil, events: [event])
    }

    /// Apple declines the customer's refund request (REFUND_DECLINED; V1 has none).
    public mutating func declineRefund(transactionID: String) throws(SimulatorError) -> Outcome {
        guard let transaction = transaction(transactionID) else {
            throw SimulatorError(.notFound, "no transaction \(transactionID)")
        }
        let event = event("REFUND_DECLINED", nil, v1: nil, about: transaction, at: nowMs)
        return Outcome(transaction: transaction, receiptData: nil, events: [event])
    }
}
