import AppStore
import Entitlements
import JWS

/// Verifies a StoreKit 2 signed transaction and maps it onto the transaction model.
public struct SignedTransactionVerifier: Sendable {
    let verifier: JWSVerifier
    let bundleID: String?

    public init(verifier: JWSVerifier, bundleID: String?) {
        self.verifier = verifier
        self.bundleID = bundleID
    }

    func verify(_ compact: String) throws(SignedTransactionError) -> Transaction {
        try verifyPriced(compact).transaction
    }

    /// ``verify(_:)`` with the price Apple signed into the transaction, for the daily rollup.
    func verifyPriced(_ compact: String) throws(SignedTransactionError)
        -> (transaction: Transaction, price: TransactionPrice?) {
        let payload: JWSTransactionPayload
        do {
            payload = try verifier.verifyTransactionPayload(compact)
        } catch let error as JWSError {
            throw .rejected(error)
        } catch {
            throw .notATransaction(reason: "\(error)")
        }
        if let bundleID, payload.bundleID != bundleID {
            throw .otherBundle(found: payload.bundleID, expected: bundleID)
        }
        return (payload.transaction, payload.transactionPrice)
    }
}

extension JWSVerifier {
    /// Verifies a signed transaction against the signing date Apple put in it, so that every
    /// reader of StoreKit 2 transactions checks the chain at the same instant.
    func verifyTransactionPayload(_ compact: String) throws -> JWSTransactionPayload {
        try verify(compact) { bytes in
            let transaction = try JWSTransactionPayload.parse(bytes)
            return (transaction, transaction.signedDateMs)
        }
    }
}
