import AppStoreServerAPI
import EntitlementPorts
import Entitlements

/// A user's refunds as Apple lists them (`GET /inApps/v2/refund/lookup/{transactionId}` for
/// each chain the user owns), every signed transaction verified like any other from Apple.
/// Read only: the refunds themselves reach the store through notifications and refreshes.
public struct RefundLookup: Sendable {
    let serverAPI: ServerAPIPurchases?
    let repository: any EntitlementRepository

    public init(serverAPI: ServerAPIPurchases?, repository: any EntitlementRepository) {
        self.serverAPI = serverAPI
        self.repository = repository
    }

    /// Whether the Server API is configured (without it every lookup fails).
    public var isConfigured: Bool { serverAPI != nil }

    /// The user's refunded transactions, newest refund first; only the user's own chains (Apple
    /// answers for the whole Apple ID). Throws ``ServerAPIError`` or ``ServerAPIDataRejected``.
    public func refunds(userID: String, deadline: ContinuousClock.Instant? = nil) async throws -> [Transaction] {
        guard let serverAPI else { return [] }
        let facts = try repository.facts(userID: userID)
        let chains = EntitlementRefresh.chains(of: facts)
        let owned = Set(chains.map(\.originalTransactionID))
        var found: [String: Transaction] = [:]
        for chain in chains {
            let signed = try await serverAPI.client.refundHistory(
                transactionID: chain.originalTransactionID, environment: chain.environment, deadline: deadline)
            for compact in signed {
                let transaction = try serverAPI.verifyTransaction(compact)
                guard owned.contains(transaction.originalTransactionID) else { continue }
                found[transaction.transactionID] = transaction
            }
        }
        return found.values.sorted {
            ($0.cancellationDateMs ?? 0, $0.transactionID) > ($1.cancellationDateMs ?? 0, $1.transactionID)
        }
    }
}
