/// The refusals the contract defines, phrased once so every backend says the same thing.
extension StoreError {
    /// Another user owns the chain and the policy is ``TransferPolicy/reject``.
    public static func ownershipConflict(originalTransactionID: String) -> StoreError {
        StoreError(code: .ownershipConflict,
                   message: "original transaction \(originalTransactionID) belongs to another user; "
                       + "submit it as that user, or run with the transfer ownership policy")
    }

    /// A notification event names no chain, so no chain (and no user) can hold it.
    public static func eventWithoutChain(sourceID: String, eventID: String) -> StoreError {
        StoreError(code: .invalidWrite,
                   message: "notification \(sourceID): event \(eventID) "
                       + "names no original transaction, so no chain can hold it")
    }
}
