import Entitlements
import Foundation

/// One mass renewal-date extension, done at once (Apple's runs for hours; its status reads
/// the same when done).
struct SimulatedMassExtension: Sendable, Hashable {
    var productID: String
    var succeeded: Int
    var failed: Int
    var completedAtMs: Int64
}

extension Simulation {
    /// Every customer of the simulator is in this storefront.
    static let storefront = "USA"

    /// The Server API's Extend Subscription Renewal Dates for All Active Subscribers: every
    /// active subscription of `productID` in `environment` (and, when `storefronts` is given,
    /// in one of them) ends `extendByDays` later; each gets RENEWAL_EXTENDED. The same
    /// `requestIdentifier` again changes nothing. Apple's errors: 4000009, 4000010, 4000011 as
    /// for one subscription; 4000023 for an empty product id.
    mutating func extendAllRenewalDates(
        productID: String?, extendByDays: Int?, reasonCode: Int?, requestIdentifier: String?, storefronts: [String]?,
        environment: Environment
    ) throws(ServerAPIErrorAnswer) -> [SimulatedEvent] {
        guard let productID, !productID.isEmpty else { throw .invalidProductID }
        guard let days = extendByDays, (1...90).contains(days) else { throw .invalidExtendByDays }
        guard let reasonCode, (0...3).contains(reasonCode) else { throw .invalidExtendReasonCode }
        guard let requestIdentifier, UUID(uuidString: requestIdentifier) != nil else {
            throw .invalidRequestIdentifier
        }
        let key = requestIdentifier.lowercased()
        guard massExtensions[key] == nil else { return [] }
        var events: [SimulatedEvent] = []
        var record = SimulatedMassExtension(productID: productID, succeeded: 0, failed: 0, completedAtMs: nowMs)
        let inStorefront = storefronts.map { $0.isEmpty || $0.contains(Self.storefront) } ?? true
        for id in subscriptions.keys.sorted() {
            guard var chain = subscriptions[id], chain.productID == productID, inStorefront,
                  accounts[chain.accountID]?.environment == environment, !chain.hasEnded, !chain.isInBillingRetry,
                  chain.expiresDateMs > nowMs else { continue }
            chain.expiresDateMs += Int64(days) * SimulatedDuration.day
            subscriptions[id] = chain
            var latest = transaction(chain.latestTransactionID)!
            latest.expiresDateMs = chain.expiresDateMs
            update(latest)
            record.succeeded += 1
            events.append(event("RENEWAL_EXTENDED", nil, v1: nil, about: latest, at: nowMs))
        }
        massExtensions[key] = record
        return events
    }

    /// A mass extension's status; nil for an identifier never used (or another product's).
    func massExtension(productID: String, requestIdentifier: String) -> SimulatedMassExtension? {
        massExtensions[requestIdentifier.lowercased()].flatMap { $0.productID == productID ? $0 : nil }
    }
}
