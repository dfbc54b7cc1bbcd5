/// What one acknowledged ``NotificationWrite`` changed; it is durable when the caller sees this.
public struct NotificationOutcome: Sendable, Hashable {
    /// The ``NotificationWrite/sourceID`` had been applied before: nothing changed.
    public var duplicate: Bool
    /// The owners of the chains the notification is about (sorted); reads of their facts see
    /// the change. Empty when no user owns any of them yet: the facts are kept for the chain and
    /// join a user's facts and history once a receipt binds the chain.
    public var ownerUserIDs: [String]
    /// Transactions stored for the first time (a known transaction_id counts 0, even if updated).
    public var newTransactions: Int
    /// History events added, owned or waiting for an owner; a replay adds 0.
    public var newEvents: Int
    /// Chains bound to a user by an app account token this service issued
    /// (``ClaimRules/bindByToken(owner:tokenUser:)``).
    public var boundByToken: Int = 0
    /// Of those, chains that moved away from another owner.
    public var ownershipTransfers: Int = 0

    public init(duplicate: Bool = false, ownerUserIDs: [String] = [], newTransactions: Int = 0,
                newEvents: Int = 0) {
        self.duplicate = duplicate
        self.ownerUserIDs = ownerUserIDs
        self.newTransactions = newTransactions
        self.newEvents = newEvents
    }
}
