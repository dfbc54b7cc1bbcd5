/// What happens when a user submits a subscription chain another user already owns.
public enum TransferPolicy: String, Sendable, CaseIterable {
    /// The chain moves to the submitting user; the previous owner's history records the move.
    /// Apple's default: the purchase follows the Apple ID that restores it.
    case transfer
    /// The write fails with ``StoreError/Code/ownershipConflict`` and changes nothing.
    case reject
}
