/// What a V2 signed transaction says the customer paid: Apple's `price` and `currency`.
///
/// Kept beside the transaction rather than in ``Transaction``: only the daily rollup's revenue
/// reads it, and the facts every entitlement check decodes stay as small as they were.
public struct TransactionPrice: Sendable, Hashable {
    public var transactionID: String
    /// Apple's `price`: thousandths of the currency's unit (1990 is 1.99).
    public var milliUnits: Int64
    /// ISO 4217, as Apple sends it (`USD`).
    public var currency: String

    public init(transactionID: String, milliUnits: Int64, currency: String) {
        self.transactionID = transactionID
        self.milliUnits = milliUnits
        self.currency = currency
    }
}
