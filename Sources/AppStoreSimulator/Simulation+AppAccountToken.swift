import Entitlements
import Foundation

extension Simulation {
    /// The Server API's Set App Account Token on `originalTransactionID`, in `environment`: from
    /// now on the purchase carries `token` as its `appAccountToken`, as a purchase made with it
    /// in the app would. Apple notifies nothing for this.
    ///
    /// Apple documents that the token applies to the transaction and, for a subscription, keeps
    /// applying to renewals through upgrades and downgrades; it does not say whether renewals
    /// already made are rewritten. The simulator rewrites every transaction of the chain, so its
    /// history, statuses, renewal info and every later notification agree on one token; each
    /// rewritten transaction counts as changed, so "history since revision R" returns it.
    ///
    /// Apple's errors, in this order: 4000006 (the id is not digits), 4000183 (`token` is
    /// missing or not a UUID), 4040005 (the environment never issued the id), 4000187 (the id is
    /// a renewal's, not an original transaction id), 4000185 (a Family Sharing transaction).
    public mutating func setAppAccountToken(
        originalTransactionID: String, token: String?, environment: Environment
    ) throws(ServerAPIErrorAnswer) {
        guard !originalTransactionID.isEmpty, originalTransactionID.utf8.allSatisfy({ (48...57).contains($0) })
        else { throw .invalidTransactionID }
        guard let token, UUID(uuidString: token) != nil else { throw .invalidAppAccountTokenUUID }
        guard let owner = owners[originalTransactionID], let account = accounts[owner],
              account.environment == environment, let original = transaction(originalTransactionID)
        else { throw .originalTransactionIDNotFound }
        guard original.originalTransactionID == originalTransactionID else {
            throw .transactionIDIsNotOriginalTransactionID
        }
        guard original.inAppOwnershipType != "FAMILY_SHARED" else { throw .familyTransactionNotSupported }
        for var transaction in account.transactions where transaction.originalTransactionID == originalTransactionID {
            transaction.appAccountToken = token
            update(transaction)
        }
    }
}
