import Entitlements

/// What a claim offers as proof that the claimant's device holds the purchase.
public enum ClaimProof: Sendable, Hashable {
    /// Apple vouched for the data the device sent: a receipt verifyReceipt accepted, or a
    /// StoreKit 2 signed transaction whose signature verified. Proof of possession.
    case deviceProof
    /// Only a transaction id (or a receipt whose signature nobody checked, see
    /// ``ReceiptRoute``): ids are printed in receipts, logs and support tickets and come from
    /// one global sequence, so they prove nothing about who holds the purchase.
    case transactionIDOnly
}

/// Why a claim was refused; the raw value is the `reason` label of the refused-claims metric.
public enum ClaimRefusalReason: String, Sendable, Hashable, CaseIterable {
    /// The chain carries an app account token this service issued to another user.
    case token
    /// Another user owns the chain and the claim offered only a transaction id.
    case bareTransactionID = "bare_transaction_id"
}

/// A refused claim: which chain, who keeps it, and why.
public struct ClaimRefusal: Sendable, Hashable {
    public var reason: ClaimRefusalReason
    public var originalTransactionID: String
    /// The user who keeps the chain (the token's user, or the current owner).
    public var ownerUserID: String

    public init(reason: ClaimRefusalReason, originalTransactionID: String, ownerUserID: String) {
        self.reason = reason
        self.originalTransactionID = originalTransactionID
        self.ownerUserID = ownerUserID
    }
}

/// What happens to one chain when a user claims it: the ownership rules, as a pure function
/// every store applies inside its write transaction.
public enum ClaimDecision: Sendable, Hashable {
    /// The chain is already the claimant's.
    case keep
    /// The chain becomes the claimant's: created, bound (`from` nil: nobody loses it) or moved
    /// from `from` (recorded as OWNERSHIP_TRANSFER in their history).
    case take(from: String?)
    /// The claim is refused; the owner keeps the chain and their history records the attempt.
    case refuse(ClaimRefusalReason, keptBy: String)
    /// Another user owns the chain and ``TransferPolicy/reject`` keeps it there.
    case conflict
}

public enum ClaimRules {
    /// The decision for `claimant` claiming a chain owned by `owner` (nil: nobody yet) whose
    /// transactions carry a token issued to `tokenUser` (nil: no token, or one never issued).
    ///
    /// The token is Apple's signed statement of whose purchase it is, so it wins over every
    /// policy; without one, a device's proof follows the transfer policy (Apple's model: a
    /// purchase follows the Apple ID that restores it), and a bare id never moves a purchase.
    public static func decide(
        claimant: String, owner: String?, tokenUser: String?, proof: ClaimProof, policy: TransferPolicy
    ) -> ClaimDecision {
        if let tokenUser {
            guard same(tokenUser, claimant) else { return .refuse(.token, keptBy: tokenUser) }
            return owner.map { same($0, claimant) } == true ? .keep : .take(from: owner)
        }
        guard let owner else { return .take(from: nil) }
        if same(owner, claimant) { return .keep }
        if proof == .transactionIDOnly { return .refuse(.bareTransactionID, keptBy: owner) }
        return policy == .transfer ? .take(from: owner) : .conflict
    }

    /// Who a notification's chain belongs to when its transactions carry a token issued to
    /// `tokenUser`: that user, whoever owned it (``ClaimDecision/take(from:)``), or nobody
    /// new (``ClaimDecision/keep``) without an issued token.
    public static func bindByToken(owner: String?, tokenUser: String?) -> ClaimDecision {
        guard let tokenUser, owner.map({ same($0, tokenUser) }) != true else { return .keep }
        return .take(from: owner)
    }

    /// User ids are compared byte for byte, as the stores key them: two ids Swift calls equal
    /// (canonically equivalent Unicode) are two accounts.
    private static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}
