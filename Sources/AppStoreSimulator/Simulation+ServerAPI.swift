import Entitlements

/// The simulation read the way the App Store Server API reads it: per customer, per environment,
/// with Apple's errors. Pure reads; the I/O shell signs what they return.
extension Simulation {
    /// One page of `GET /inApps/v2/history/{transactionId}`.
    public struct TransactionHistoryPage: Sendable {
        public var transactions: [Transaction]
        /// Where the next query starts; after the last page, where a later query for "what
        /// changed since" starts.
        public var revision: String
        public var hasMore: Bool
    }

    /// One subscription chain as `GET /inApps/v1/subscriptions/{transactionId}` reports it.
    public struct LastTransaction: Sendable {
        public var status: Int
        public var transaction: Transaction
        public var renewalInfo: RenewalInfo
        public var currentProductID: String
    }

    /// The customer's transactions, ordered by when each was last created or changed (Apple
    /// sorts the v2 history by modification date), after `revision`, at most `pageSize`.
    ///
    /// Consumables are left out unless refunded: Apple omits finished consumables, and the
    /// simulator treats every consumable as finished.
    public func transactionHistory(
        transactionID: String, environment: Environment, revision: String?, pageSize: Int
    ) throws(ServerAPIErrorAnswer) -> TransactionHistoryPage {
        let account = try account(holding: transactionID, in: environment)
        var after: Int64 = 0
        if let revision, !revision.isEmpty {
            guard revision.hasPrefix("r"), let parsed = Int64(revision.dropFirst()), parsed >= 0 else {
                throw .invalidRequestRevision
            }
            after = parsed
        }
        let ordered = account.transactions
            .filter { $0.declaredProductType != .consumable || $0.cancellationDateMs != nil }
            .map { (revisions[$0.transactionID] ?? 0, $0) }
            .filter { $0.0 > after }
            .sorted { $0.0 < $1.0 }
        let page = ordered.prefix(max(pageSize, 1))
        return TransactionHistoryPage(
            transactions: page.map(\.1), revision: "r\(page.last?.0 ?? after)", hasMore: ordered.count > page.count)
    }

    /// Every auto-renewable chain of the customer, grouped by subscription group (in group id
    /// order), each with its status now; `statuses` keeps only those statuses when given.
    public func subscriptionStatuses(
        transactionID: String, environment: Environment, statuses: Set<Int>?
    ) throws(ServerAPIErrorAnswer) -> [(groupID: String, lastTransactions: [LastTransaction])] {
        let account = try account(holding: transactionID, in: environment)
        var groups: [String: [LastTransaction]] = [:]
        for chain in subscriptions.values where chain.accountID == account.id {
            guard let latest = transaction(chain.latestTransactionID) else { continue }
            let status = chain.status(at: nowMs)
            if let statuses, !statuses.contains(status) { continue }
            let group = latest.subscriptionGroupIdentifier ?? configuration.subscriptionGroupIdentifier
            groups[group, default: []].append(
                LastTransaction(status: status, transaction: latest, renewalInfo: chain.renewalInfo(at: nowMs),
                                currentProductID: chain.productID))
        }
        return groups.keys.sorted().map { group in
            let chains = groups[group]!
            return (group, chains.sorted { $0.transaction.originalTransactionID < $1.transaction.originalTransactionID }
            )
        }
    }

    /// `GET /inApps/v1/transactions/{transactionId}`: the transaction as it stands now.
    public func transactionInfo(
        transactionID: String, environment: Environment
    ) throws(ServerAPIErrorAnswer) -> Transaction {
        _ = try account(holding: transactionID, in: environment)
        guard let found = transaction(transactionID) else { throw .transactionIDNotFound }
        return found
    }

    /// The customer who owns `transactionID` in `environment`. Apple's transaction ids are
    /// digits (else 4000006); an id the environment never issued is 4040010, which tells the
    /// client to try the other environment.
    private func account(holding transactionID: String, in environment: Environment) throws(ServerAPIErrorAnswer)
        -> SimulatedAccount
    {
        guard !transactionID.isEmpty, transactionID.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw .invalidTransactionID
        }
        guard let owner = owners[transactionID], let account = accounts[owner], account.environment == environment
        else { throw .transactionIDNotFound }
        return account
    }
}
