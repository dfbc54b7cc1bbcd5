import AppStore
import Entitlements
import JWS
import RPCCore

/// Verifies a StoreKit 2 signed transaction and maps it onto the transaction model.
public struct SignedTransactionVerifier: Sendable {
    let verifier: JWSVerifier
    let bundleID: String?

    public init(verifier: JWSVerifier, bundleID: String?) {
        self.verifier = verifier
        self.bundleID = bundleID
    }

    func verify(_ compact: String) throws -> Transaction {
        let payload: JWSTransactionPayload
        do {
            payload = try verifier.verify(compact) { bytes in
                let transaction = try JWSTransactionPayload.parse(bytes)
                return (transaction, transaction.signedDateMs)
            }
        } catch let error as JWSError {
            throw RPCError(.invalidArgument, "signed_transaction failed verification: \(error.message)")
        } catch {
            throw RPCError(.invalidArgument, "signed_transaction is not a transaction: \(error)")
        }
        if let bundleID, payload.bundleID != bundleID {
            throw RPCError(.invalidArgument, "signed_transaction is for bundle '\(payload.bundleID ?? "(none)")', not '\(bundleID)'")
        }
        return payload.transaction
    }
}
