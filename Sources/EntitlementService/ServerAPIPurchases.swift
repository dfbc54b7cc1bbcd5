import AppStore
import AppStoreServerAPI
import Entitlements
import JWS

/// What the App Store Server API said about one customer's purchases, every JWS verified.
public struct FetchedPurchases: Sendable {
    /// The environment that answered (production, or sandbox after 4040010/4040005).
    public var environment: Environment
    public var transactions: [Transaction]
    public var renewalInfos: [RenewalInfo]
    /// The history's last revision: record it once the facts are durable.
    public var revision: String
    /// The prices Apple signed into ``transactions`` (the daily rollup's revenue).
    public var prices: [TransactionPrice] = []
}

/// Asks the App Store Server API about a transaction id and verifies what comes back exactly
/// like a V2 notification (same ``JWSVerifier``, same roots, same bundle check): one JWS that
/// fails makes the whole answer fail, so nothing unverified ever reaches the store.
public struct ServerAPIPurchases: Sendable {
    let client: AppStoreServerClient
    let verifier: JWSVerifier
    /// The same signature and bundle checks as a transaction the app submits.
    let transactions: SignedTransactionVerifier

    public init(client: AppStoreServerClient, verifier: JWSVerifier, bundleID: String?) {
        self.client = client
        self.verifier = verifier
        transactions = SignedTransactionVerifier(verifier: verifier, bundleID: bundleID)
    }

    /// The history of `transactionID` (only what is newer than `revision` when given) and,
    /// when any of it is a subscription (or `subscription` says the chain is one), the
    /// subscription statuses, which carry the renewal infos the history lacks.
    func fetch(transactionID: String, revision: String? = nil, environment: Environment? = nil,
               subscription: Bool = false, deadline: ContinuousClock.Instant?) async throws -> FetchedPurchases {
        let history = try await client.transactionHistory(transactionID: transactionID, revision: revision,
                                                          environment: environment, deadline: deadline)
        var transactions: [Transaction] = [], prices: [TransactionPrice] = []
        func add(_ signed: String) throws(ServerAPIDataRejected) {
            let (transaction, price) = try verifyPricedTransaction(signed)
            transactions.append(transaction)
            if let price { prices.append(price) }
        }
        for signed in history.signedTransactions { try add(signed) }
        var renewals: [RenewalInfo] = []
        if subscription || transactions.contains(where: { $0.expiresDateMs != nil }) {
            let statuses = try await client.subscriptionStatuses(transactionID: transactionID,
                                                                 environment: history.environment, deadline: deadline)
            for last in statuses.lastTransactions {
                if let signed = last.signedTransactionInfo { try add(signed) }
                if let signed = last.signedRenewalInfo { renewals.append(try verifyRenewal(signed)) }
            }
        }
        return FetchedPurchases(environment: history.environment, transactions: transactions,
                                renewalInfos: renewals, revision: history.revision, prices: prices)
    }

    /// Asks Apple to put `token` on the purchase `originalTransactionID` (a subscription keeps it
    /// through renewals), so that its later transactions, renewal infos and notifications name
    /// the account the service issued `token` to. Apple answers with nothing to verify: what it
    /// stored shows in the next notification or history read, which the service verifies as usual.
    ///
    /// `environment` nil asks production first, then sandbox; returns the one that knew the id.
    /// Throws ``ServerAPIError`` (``ServerAPIError/Code/invalidRequest`` for a token that is not a
    /// UUID or an id that is not an original transaction id, ``ServerAPIError/Code/notFound`` for
    /// an id neither environment knows).
    @discardableResult
    public func setAppAccountToken(originalTransactionID: String, token: String, environment: Environment? = nil,
                                   deadline: ContinuousClock.Instant?) async throws -> Environment {
        try await client.setAppAccountToken(originalTransactionID: originalTransactionID, appAccountToken: token,
                                            environment: environment, deadline: deadline)
    }

    func verifyTransaction(_ compact: String) throws(ServerAPIDataRejected) -> Transaction {
        try verifyPricedTransaction(compact).transaction
    }

    /// ``verifyTransaction(_:)`` with the price Apple signed into it.
    func verifyPricedTransaction(_ compact: String) throws(ServerAPIDataRejected)
        -> (transaction: Transaction, price: TransactionPrice?) {
        do {
            return try transactions.verifyPriced(compact)
        } catch {
            throw ServerAPIDataRejected(what: "signedTransactionInfo", reason: "\(error)")
        }
    }

    func verifyRenewal(_ compact: String) throws(ServerAPIDataRejected) -> RenewalInfo {
        do {
            return try verifier.verify(compact) { bytes in
                let renewal = try JWSRenewalInfoPayload.parse(bytes)
                return (renewal, renewal.signedDateMs)
            }.renewalInfo
        } catch {
            throw ServerAPIDataRejected(what: "signedRenewalInfo", reason: "\(error)")
        }
    }
}

/// Signed data from the App Store Server API that failed verification: nothing of that answer
/// is stored. FAILED_PRECONDITION at the edge, since retrying gets the same data; the usual
/// cause is a trust or bundle configuration that does not match the API's signer.
public struct ServerAPIDataRejected: Error, Sendable, CustomStringConvertible {
    public var what: String
    public var reason: String

    public var description: String { "\(what) from the App Store Server API failed verification: \(reason)" }
}
