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
        guard let time = NotificationIngestor.nestedTime(compact) else {
            throw RPCError(.invalidArgument, "signed_transaction is not a StoreKit 2 JWS with a signedDate")
        }
        let payload: JWSTransactionPayload
        do {
            payload = try JWSTransactionPayload.parse(try verifier.verify(compact, at: time).payload)
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
