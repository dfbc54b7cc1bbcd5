/// The refusals the contract defines, phrased once so every backend says the same thing.
extension StoreError {
    /// Another user owns the chain and the policy is ``TransferPolicy/reject``.
    public static func ownershipConflict(originalTransactionID: String) -> StoreError {
        StoreError(code: .ownershipConflict,
                   message: "original transaction \(originalTransactionID) belongs to another user; "
                       + "submit it as that user, or run with the transfer ownership policy")
    }

    /// `claimant`'s claim was refused; the message says what would work instead, and never
    /// names the user who keeps the chain (the claimant may be the attacker).
    public static func claimRefused(_ refusal: ClaimRefusal, claimant: String) -> StoreError {
        let chain = refusal.originalTransactionID
        let message = switch refusal.reason {
        case .token:
            "original transaction \(chain) was bought with another account's app account token, so it "
                + "belongs to that account under every transfer policy; sign in as that account"
        case .bareTransactionID:
            "original transaction \(chain) belongs to another user, and a transaction id alone cannot move a "
                + "purchase: submit the app's receipt (receipt_data) or StoreKit 2 signed transaction "
                + "(signed_transaction) from the device that holds it"
        }
        return StoreError(code: .claimRefused, message: message, refusal: refusal)
    }

    /// A notification event names no chain, so no chain (and no user) can hold it.
    public static func eventWithoutChain(sourceID: String, eventID: String) -> StoreError {
        StoreError(code: .invalidWrite,
                   message: "notification \(sourceID): event \(eventID) "
                       + "names no original transaction, so no chain can hold it")
    }
}
