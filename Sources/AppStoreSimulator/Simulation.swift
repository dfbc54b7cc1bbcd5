import Foundation
import Entitlements

/// The simulated App Store: customers, their transactions and subscriptions, and a clock.
///
/// A value-type state machine: every control action is a `mutating` method that changes the
/// state and returns what happened as ``SimulatedEvent``s; it never touches a socket, a key or
/// a real clock. The I/O shell (``AppStoreSimulator``) reads the wall clock, signs, and posts.
///
/// Time: simulated now is the wall clock plus an offset that ``advance(byMs:)`` grows, so the
/// simulation keeps pace with real time (a service checking entitlements at its own real clock
/// sees sensible dates) and can also jump forward. Whenever time passes, what Apple would do at
/// each instant happens in order: renewals at period ends, billing failures, grace expiry,
/// expiry of subscriptions that will not renew.
public struct Simulation: Sendable {
    public struct Configuration: Sendable {
        public var bundleID: String
        /// Checked against verifyReceipt's `password` (21004); nil accepts any.
        public var sharedSecret: String?
        public var bundleVersion: String
        /// Every auto-renewable is in this one subscription group, so any two can be swapped.
        public var subscriptionGroupIdentifier: String
        /// The period used when a purchase names none: Apple's "1 month".
        public var defaultPeriodMs: Int64
        /// The first id handed out. Apple's ids are unique for ever, and a client keeps what it
        /// saw across simulator restarts, so a long-running sim starts from its start time
        /// (``idBase(startingAt:)``) rather than from the same number every time.
        public var firstTransactionID: Int64
        /// The app's Apple id: production Server API answers carry it (`appAppleId`), sandbox ones do not.
        public var appAppleID: Int64
        /// Wraps a receipt's DER content (``AppReceiptPayload``) as PKCS#7 SignedData, so receipts
        /// are real App Store receipts a client can read locally; nil keeps them opaque tokens.
        public var receiptSealer: (@Sendable ([UInt8]) -> [UInt8]?)?

        public init(bundleID: String, sharedSecret: String?, bundleVersion: String = "1",
                    subscriptionGroupIdentifier: String = "20000001",
                    defaultPeriodMs: Int64 = 30 * SimulatedDuration.day,
                    firstTransactionID: Int64 = 2_000_000_000_000_001, appAppleID: Int64 = 1_234_567_890) {
            self.appAppleID = appAppleID
            self.bundleID = bundleID
            self.sharedSecret = sharedSecret
            self.bundleVersion = bundleVersion
            self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
            self.defaultPeriodMs = defaultPeriodMs
            self.firstTransactionID = firstTransactionID
        }

        /// A 16-digit first id that differs for every start millisecond (a thousand ids apart
        /// per millisecond), like Apple's: strings in JSON, below 2^53 but never parsed.
        public static func idBase(startingAt wallMs: Int64) -> Int64 {
            2_000_000_000_000_000 + (wallMs % 1_000_000_000_000) * 1000 + 1
        }
    }

    /// What one action did: the transaction it made or acted on, and what Apple would notify.
    public struct Outcome: Sendable {
        public var transaction: Transaction?
        public var receiptData: String?
        public var events: [SimulatedEvent]
    }

    /// Subscription periods below this are refused: renewals would outrun any client.
    public static let minimumPeriodMs: Int64 = 1000
    /// At most this many events per action, so a tiny period and a long jump cannot hang.
    static let maximumEventsPerAction = 10_000

    public let configuration: Configuration
    private(set) var wallMs: Int64
    private(set) var offsetMs: Int64 = 0
    var accounts: [String: SimulatedAccount] = [:]
    var receipts: [String: IssuedReceipt] = [:]
    var subscriptions: [String: SimulatedSubscription] = [:]
    /// Which account holds each transaction id.
    var owners: [String: String] = [:]
    /// When each transaction was last created or changed, as a store-wide sequence: the order
    /// of the Server API's transaction history and what its `revision` token points into.
    var revisions: [String: Int64] = [:]
    private(set) var latestRevision: Int64 = 0
    /// Renewal-date extensions by Apple's `requestIdentifier` (its idempotency key).
    var renewalExtensions: [String: SimulatedRenewalExtension] = [:]
    /// Mass extensions by `requestIdentifier`.
    var massExtensions: [String: SimulatedMassExtension] = [:]
    private var nextID: Int64
    private var anonymousCustomers = 0

    /// Starts the simulated clock at `wallMs` (the real now).
    public init(configuration: Configuration, wallMs: Int64) {
        self.configuration = configuration
        self.wallMs = wallMs
        nextID = configuration.firstTransactionID
    }

    /// Simulated now.
    public var nowMs: Int64 { wallMs + offsetMs }

    /// Lets real time pass up to `wallMs` (never backwards) and runs what fell due.
    public mutating func observeWallClock(_ wallMs: Int64) -> [SimulatedEvent] {
        self.wallMs = max(self.wallMs, wallMs)
        return processDue(until: nowMs)
    }

    /// Moves simulated time forward by `byMs`, running everything that falls due on the way.
    public mutating func advance(byMs: Int64) throws(SimulatorError) -> Outcome {
        guard byMs >= 0 else { throw SimulatorError(.invalidArgument, "time only moves forward") }
        let events = processDue(until: nowMs + byMs)
        offsetMs += byMs
        return Outcome(transaction: nil, receiptData: nil, events: events)
    }

    /// Moves simulated time to `unixMs` if that is later than now.
    mutating func advance(to unixMs: Int64) -> [SimulatedEvent] {
        guard unixMs > nowMs else { return [] }
        let events = processDue(until: unixMs)
        offsetMs += unixMs - nowMs
        return events
    }

    // MARK: Ids and receipts

    mutating func makeTransactionID() -> String {
        defer { nextID += 1 }
        return String(nextID)
    }

    mutating func makeAnonymousCustomer() -> String {
        anonymousCustomers += 1
        return "customer-\(anonymousCustomers)"
    }

    /// Issues a new receipt for the account as it is at `unixMs`; it becomes the latest.
    mutating func issueReceipt(for accountID: String, at unixMs: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: 48)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let inApp = accounts[accountID]?.transactions ?? []
        // The random nonce (Apple's opaque value) keeps every receipt's bytes distinct.
        let sealed = configuration.receiptSealer.flatMap { seal in
            seal(AppReceiptPayload.encode(
                bundleID: configuration.bundleID, bundleVersion: configuration.bundleVersion, createdAtMs: unixMs,
                inApp: inApp, nonce: Array(bytes.prefix(20))))
        }
        let token = Data(sealed ?? bytes).base64EncodedString()
        let ids = inApp.map(\.transactionID)
        receipts[token] = IssuedReceipt(accountID: accountID, inAppTransactionIDs: ids, createdAtMs: unixMs)
        accounts[accountID]?.latestReceipt = token
        return token
    }

    // MARK: Lookups

    func transaction(_ id: String) -> Transaction? {
        guard let owner = owners[id] else { return nil }
        return accounts[owner]?.transactions.first { $0.transactionID == id }
    }

    /// Records that `transactionID` was created or changed now (see ``revisions``).
    mutating func touch(_ transactionID: String) {
        latestRevision += 1
        revisions[transactionID] = latestRevision
    }

    mutating func update(_ transaction: Transaction) {
        touch(transaction.transactionID)
        guard let owner = owners[transaction.transactionID],
            let index = accounts[owner]?.transactions.firstIndex(where: {
                $0.transactionID == transaction.transactionID
            })
        else { return }
        accounts[owner]?.transactions[index] = transaction
    }

    func subscription(_ originalTransactionID: String) throws(SimulatorError) -> SimulatedSubscription {
        guard let subscription = subscriptions[originalTransactionID] else {
            throw SimulatorError(
                .notFound, "no auto-renewable subscription with original transaction id \(originalTransactionID)")
        }
        return subscription
    }

    /// The event for `subscription`'s chain (or a one-time `transaction`) at `unixMs`.
    func event(
        _ type: String, _ subtype: String?, v1: String?, about transaction: Transaction, at unixMs: Int64,
        cancellationDateMs: Int64? = nil
    ) -> SimulatedEvent {
        let owner = owners[transaction.transactionID].flatMap { accounts[$0] }
        let chain = subscriptions[transaction.originalTransactionID]
        let ownedChains = subscriptions.values.filter { $0.accountID == owner?.id }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        return SimulatedEvent(
            notificationType: type, subtype: subtype, v1NotificationType: v1,
            notificationUUID: UUID().uuidString.lowercased(), signedDateMs: unixMs,
            environment: transaction.environment, transaction: transaction,
            renewalInfo: chain?.renewalInfo(at: unixMs), currentProductID: chain?.productID,
            status: chain?.status(at: unixMs),
            receiptTransactions: (owner?.transactions ?? []).filter { $0.declaredProductType != .consumable },
            receiptRenewalInfos: ownedChains.map { $0.renewalInfo(at: unixMs) },
            latestReceipt: owner?.latestReceipt ?? "", cancellationDateMs: cancellationDateMs)
    }
}
