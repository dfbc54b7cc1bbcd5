import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import RPCCore

extension AppleOperations {
    /// LookUpOrder: the transactions of the order id on a customer's invoice (how support finds
    /// a purchase from an email), each with the user who owns its chain here ("" when none).
    ///
    /// Every signed transaction is verified like any other from Apple (roots, chain, bundle);
    /// one that fails fails the whole call, and nothing of the answer is stored: a lookup only
    /// reads.
    public func lookUpOrder(
        _ request: EntitlementV1.LookUpOrderRequest, deadline: ContinuousClock.Instant?
    ) async throws -> EntitlementV1.LookUpOrderResponse {
        let serverAPI = try configuredServerAPI()
        guard Self.isOrderID(request.orderID) else {
            throw RPCError(.invalidArgument, "order_id must be the order id on the customer's invoice (letters and "
                           + "digits, e.g. MK5TTTVWJH)")
        }
        let lookup = try await serverAPI.client.lookUpOrder(orderID: request.orderID, deadline: deadline)
        let transactions = try lookup.signedTransactions.map(serverAPI.verifyTransaction)
        var response = EntitlementV1.LookUpOrderResponse()
        response.found = lookup.found
        for transaction in transactions.sorted(by: { $0.isOrdered(before: $1) }) {
            var row = EntitlementV1.OrderTransaction()
            row.transactionID = transaction.transactionID
            row.originalTransactionID = transaction.originalTransactionID
            row.productID = transaction.productID
            row.purchasedAtMs = transaction.purchaseDateMs
            row.ownerUserID = try currentOwner(of: transaction.originalTransactionID) ?? ""
            response.transactions.append(row)
        }
        return response
    }

    /// Apple's order ids are short upper-case letters and digits; anything else cannot be one,
    /// and is refused before Apple's rate (10 lookups a second) is spent on it.
    static func isOrderID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy {
            (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0)
        }
    }

    private func currentOwner(of originalTransactionID: String) throws -> String? {
        guard let accountTokens else { return nil }
        return try withStoreErrors { try accountTokens.owners(originalTransactionID: originalTransactionID) }
            .last { $0.untilMs == nil }?.userID
    }
}
