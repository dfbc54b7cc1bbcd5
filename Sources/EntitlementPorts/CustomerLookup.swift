import Entitlements

/// Finding a customer by what support staff are handed: a transaction id from an App Store
/// receipt email, an app account token from a log line.
///
/// A port of its own beside ``AccountTokens``: only people (the console) look customers up, and
/// every lookup is a read of an index the store keeps anyway. Reads never issue or bind
/// anything: looking at a customer must not change what is stored about them.
public protocol CustomerLookup: Sendable {
    /// The original transaction id of the chain holding `transactionID` (any transaction of it,
    /// the original included); nil when no stored transaction has that id.
    func originalTransactionID(ofTransaction transactionID: String) throws -> String?
    /// The app account token issued to `userID`, or nil when none was issued yet (unlike
    /// ``AccountTokens/appAccountToken(userID:)``, which issues one).
    func issuedAppAccountToken(userID: String) throws -> String?
}
