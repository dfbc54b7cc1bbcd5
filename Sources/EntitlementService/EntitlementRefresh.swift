import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore
import ServiceRuntime

/// RefreshEntitlements: asks the App Store Server API about every chain the user owns (its
/// history since the revision last seen, and its subscription status), records what is new,
/// and answers with the user's entitlements evaluated now.
///
/// Only chains the user already owns are recorded: a refresh repairs what we know (a missed
/// refund or renewal), it never moves a chain between users; a new purchase reaches the
/// service through SubmitReceipt or a notification.
public struct EntitlementRefresh: Sendable {
    let serverAPI: ServerAPIPurchases?
    let repository: any EntitlementRepository
    let revisions: (any TransactionHistoryRevisions)?
    let catalog: Catalog
    let now: UnixClock

    public init(serverAPI: ServerAPIPurchases?, repository: any EntitlementRepository,
                revisions: (any TransactionHistoryRevisions)?, catalog: Catalog, now: @escaping UnixClock) {
        self.serverAPI = serverAPI
        self.repository = repository
        self.revisions = revisions
        self.catalog = catalog
        self.now = now
    }

    func refresh(_ request: EntitlementV1.RefreshEntitlementsRequest,
                 deadline: ContinuousClock.Instant?) async throws -> EntitlementV1.RefreshEntitlementsResponse {
        try await ServiceErrors.mapping { try await refreshChains(request, deadline: deadline) }
    }

    func refreshChains(_ request: EntitlementV1.RefreshEntitlementsRequest,
                       deadline: ContinuousClock.Instant?) async throws -> EntitlementV1.RefreshEntitlementsResponse {
        guard let serverAPI else { throw RPCError(.failedPrecondition, ReceiptSubmission.serverAPIRequired) }
        guard !request.userID.isEmpty else { throw RPCError(.invalidArgument, "user_id is required") }
        let facts = try withStoreErrors { try repository.facts(userID: request.userID) }
        var newTransactions = 0
        for chain in Self.chains(of: facts) {
            let revision = try await withStoreErrors {
                try await revisions?.historyRevision(originalTransactionID: chain.originalTransactionID)
            }
            var fetched = try await serverAPI.fetch(
                transactionID: chain.originalTransactionID, revision: revision, environment: chain.environment,
                subscription: chain.isSubscription, deadline: deadline)
            let owned = Set(facts.transactions.map(\.originalTransactionID))
            fetched.transactions.removeAll { !owned.contains($0.originalTransactionID) }
            fetched.renewalInfos.removeAll { !owned.contains($0.originalTransactionID) }
            // No device proof: if the chain moved to another account since the facts were read,
            // a refresh must not take it back.
            let kept = Set(fetched.transactions.map(\.transactionID))
            let write = FactsWrite(userID: request.userID, transactions: fetched.transactions,
                                   renewalInfos: fetched.renewalInfos, source: .receipt, proof: .transactionIDOnly,
                                   prices: fetched.prices.filter { kept.contains($0.transactionID) })
            newTransactions += try await withStoreErrors { try await repository.write(write) }.newTransactions
            try await withStoreErrors {
                try await revisions?.recordHistoryRevision(fetched.revision,
                                                           originalTransactionID: chain.originalTransactionID)
            }
        }
        let refreshedAt = now()
        let current = try withStoreErrors { try repository.facts(userID: request.userID) }
        var response = EntitlementV1.RefreshEntitlementsResponse()
        response.entitlements = APIMapping.entitlements(
            EntitlementRules.entitlements(for: current, at: .now(refreshedAt), catalog: catalog))
        APIMapping.addAppAccountTokens(&response.entitlements, from: current)
        response.newTransactions = Int32(newTransactions)
        response.refreshedAtMs = refreshedAt
        return response
    }

    struct Chain: Equatable {
        var originalTransactionID: String
        var environment: Environment
        var isSubscription: Bool
    }

    /// The user's chains in a stable order, each with the environment it lives in and whether
    /// it is a subscription (then its status is asked for too).
    static func chains(of facts: UserFacts) -> [Chain] {
        var chains: [String: Chain] = [:]
        for transaction in facts.transactions {
            let isSubscription = transaction.expiresDateMs != nil
            if var chain = chains[transaction.originalTransactionID] {
                chain.isSubscription = chain.isSubscription || isSubscription
                chains[transaction.originalTransactionID] = chain
            } else {
                chains[transaction.originalTransactionID] = Chain(
                    originalTransactionID: transaction.originalTransactionID, environment: transaction.environment,
                    isSubscription: isSubscription)
            }
        }
        return chains.values.sorted { $0.originalTransactionID < $1.originalTransactionID }
    }
}
