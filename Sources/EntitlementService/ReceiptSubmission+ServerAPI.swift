import AppStoreServerAPI
import EntitlementAPI
import EntitlementPorts
import Entitlements
import Foundation
import RPCCore

extension ReceiptSubmission {
    static let serverAPIRequired = "the App Store Server API is not configured: start the service with "
        + "--app-store-key, --app-store-key-id and --app-store-issuer-id (and --bundle-id)"

    /// `transaction_id`: the whole transaction history of that id and the subscription
    /// statuses, from the App Store Server API, recorded for the user like a receipt.
    func submitTransactionID(_ request: EntitlementV1.SubmitReceiptRequest,
                             deadline: ContinuousClock.Instant?) async throws -> EntitlementV1.SubmitReceiptResponse {
        guard let serverAPI else { throw RPCError(.failedPrecondition, Self.serverAPIRequired) }
        guard Self.isTransactionID(request.transactionID) else {
            throw RPCError(.invalidArgument, "transaction_id must be an App Store transaction id (digits)")
        }
        let fetched = try await serverAPI.fetch(transactionID: request.transactionID, deadline: deadline)
        return try await withStoreErrors { try await record([fetched], for: request.userID) }
    }

    /// `receipt_data` with the Server API in use: the receipt's transaction ids are read
    /// locally (PKCS#7), then one history call per distinct original transaction. Returns nil
    /// when the receipt holds no in-app purchase and verifyReceipt should answer instead.
    func submitReceiptViaServerAPI(_ receiptBase64: String, userID: String, fallback: Bool,
                                   deadline: ContinuousClock.Instant?) async throws
        -> EntitlementV1.SubmitReceiptResponse? {
        guard let serverAPI else { throw RPCError(.failedPrecondition, Self.serverAPIRequired) }
        guard let der = Data(base64Encoded: receiptBase64) else {
            throw RPCError(.invalidArgument, "receipt_data is not standard base64")
        }
        let purchases: [AppReceipt.InAppPurchase]
        do {
            purchases = try AppReceipt.inAppPurchases(der: [UInt8](der))
        } catch {
            throw RPCError(.invalidArgument, "receipt_data is not an App Store receipt: \(error.message)", cause: error)
        }
        guard !purchases.isEmpty else {
            if fallback { return nil }
            throw RPCError(.invalidArgument, "the receipt holds no in-app purchase, so the App Store Server API has "
                           + "no transaction id to look up (--receipt-mode server-api); send a transaction_id or "
                           + "signed_transaction instead")
        }
        var originals: [String] = []
        for purchase in purchases where !originals.contains(purchase.originalTransactionID) {
            originals.append(purchase.originalTransactionID)
        }
        var fetched: [FetchedPurchases] = []
        for original in originals {
            fetched.append(try await serverAPI.fetch(transactionID: original, deadline: deadline))
        }
        do {
            return try await record(fetched, for: userID)
        } catch let error as StoreError where error.refusal?.reason == .bareTransactionID {
            // The receipt's ids were read without checking its signature, so it proves no
            // more than the ids: verifyReceipt (which checks it) decides a move between users.
            if fallback { return nil }
            throw RPCError(.permissionDenied, "original transaction \(error.refusal!.originalTransactionID) belongs "
                           + "to another user, and with --receipt-mode server-api a receipt's signature is not "
                           + "checked, so it cannot move a purchase: submit the StoreKit 2 signed transaction "
                           + "(signed_transaction) instead", cause: error)
        } catch let error as StoreError {
            throw error.rpcError
        }
    }

    /// One write for everything fetched (all-or-nothing, like one receipt), then each chain's
    /// revision, then the answer. No source id: the transactions themselves make it idempotent.
    /// Apple's answers are about the ids the caller named, not proof that the caller's device
    /// holds the purchase (``ClaimProof/transactionIDOnly``). Store errors stay ``StoreError``s.
    func record(_ fetched: [FetchedPurchases], for userID: String) async throws
        -> EntitlementV1.SubmitReceiptResponse {
        let write = FactsWrite(userID: userID, transactions: fetched.flatMap(\.transactions),
                               renewalInfos: fetched.flatMap(\.renewalInfos), source: .receipt,
                               proof: .transactionIDOnly, prices: fetched.flatMap(\.prices))
        let outcome = try await storeClaim(write)
        if let revisions {
            for batch in fetched {
                for chain in Set(batch.transactions.map(\.originalTransactionID)) {
                    try await revisions.recordHistoryRevision(batch.revision, originalTransactionID: chain)
                }
            }
        }
        var response = EntitlementV1.SubmitReceiptResponse()
        response.environment = APIMapping.environment(fetched.first?.environment ?? .production)
        response.newTransactions = Int32(outcome.newTransactions)
        response.entitlements = try entitlements(of: userID)
        return response
    }

    /// Apple's transaction ids are decimal digits; refusing anything else here saves a call.
    public static func isTransactionID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 32
            && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
