import AppStore
import Entitlements
import Foundation
import JWS

extension Simulation {
    /// Answers one verifyReceipt POST at `endpoint` with Apple's semantics, as JSON bytes.
    ///
    /// In Apple's order of failure: a body that is not a receipt request or a receipt the
    /// store never issued is 21002; a receipt from the other environment 21007 (sandbox
    /// receipt sent to production) or 21008 (the reverse); a wrong shared secret 21004.
    /// Without `password` the answer has no `latest_receipt_info` or `pending_renewal_info`.
    public func verifyReceipt(body: [UInt8], endpoint: Environment) -> [UInt8] {
        guard let request = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let receiptData = request["receipt-data"] as? String,
              let receipt = receipts[receiptData], let account = accounts[receipt.accountID]
        else { return VerifyReceiptResponse(status: 21002).jsonBody() }
        guard account.environment == endpoint else {
            return VerifyReceiptResponse(status: account.environment == .sandbox ? 21007 : 21008).jsonBody()
        }
        let password = request["password"] as? String
        if let password, let secret = configuration.sharedSecret, !constantTimeEquals(password, secret) {
            return VerifyReceiptResponse(status: 21004, environment: endpoint).jsonBody()
        }
        let inApp = account.transactions.filter { receipt.inAppTransactionIDs.contains($0.transactionID) }
        var response = VerifyReceiptResponse(
            status: 0, environment: endpoint, bundleID: configuration.bundleID, latestReceipt: account.latestReceipt)
        if password != nil {
            var latest = account.transactions.filter { $0.declaredProductType != .consumable }
            if (request["exclude-old-transactions"] as? Bool) == true {
                let newest = Dictionary(grouping: latest, by: \.originalTransactionID)
                    .compactMapValues { chain in chain.max { $0.purchaseDateMs < $1.purchaseDateMs } }
                latest = latest.filter { newest[$0.originalTransactionID]?.transactionID == $0.transactionID }
            }
            response.transactions = latest
            response.renewalInfos = subscriptions.values.filter { $0.accountID == account.id }
                .sorted { $0.originalTransactionID < $1.originalTransactionID }
                .map { $0.renewalInfo(at: nowMs) }
        }
        return response.jsonBody(inApp: inApp, receiptCreationDateMs: receipt.createdAtMs, requestDateMs: nowMs)
    }

    /// The customer's receipt and the chain (or one-time purchase) of `transactionID` now,
    /// for the control API's `receipt` action.
    public func receiptSnapshot(
        transactionID: String
    ) throws(SimulatorError) -> (receiptData: String, chain: [Transaction], renewal: RenewalInfo?, status: Int?) {
        guard let subject = transaction(transactionID), let owner = owners[transactionID],
              let account = accounts[owner]
        else { throw SimulatorError(.notFound, "no transaction \(transactionID)") }
        let chain = account.transactions.filter { $0.originalTransactionID == subject.originalTransactionID }
        let subscription = subscriptions[subject.originalTransactionID]
        return (account.latestReceipt, chain, subscription?.renewalInfo(at: nowMs), subscription?.status(at: nowMs))
    }
}
