import EntitlementPorts
import Entitlements

/// A data set for the dashboard: users whose histories spread over the last ~400 days, so the
/// rollup has something on every day (the shared set's users all share three dates).
///
/// User `d<i>` starts `i % 400` days ago; one in three begins with a 7-day free trial; then
/// `1 + i % 5` monthly paid periods (the latest still running for many); one in fifty has its
/// last payment refunded two days after it. Paid transactions carry a price of 9.99 in one of
/// four currencies, as V2 signed transactions do; trials a price of 0.
struct DashboardData {
    static let day: Int64 = 86_400_000
    static let month: Int64 = 30 * day
    static let currencies = ["USD", "EUR", "GBP", "JPY"]

    let nowMs: Int64

    func write(user index: Int) -> FactsWrite {
        let chain = "9\(index)"
        var start = nowMs - Int64(index % 400) * Self.day - Int64(index % 86_400) * 1000
        var transactions: [Transaction] = []
        var prices: [TransactionPrice] = []
        func add(length: Int64, trial: Bool) {
            let id = "\(chain)\(transactions.count)"
            transactions.append(Transaction(
                transactionID: id, originalTransactionID: chain, productID: "pro.monthly", purchaseDateMs: start,
                expiresDateMs: start + length, isTrialPeriod: trial, isInIntroOfferPeriod: trial,
                subscriptionGroupIdentifier: "grp.pro", environment: .production, declaredProductType: .autoRenewable))
            prices.append(TransactionPrice(transactionID: id, milliUnits: trial ? 0 : 9_990,
                                           currency: Self.currencies[index % Self.currencies.count]))
            start += length
        }
        if index % 3 == 0 { add(length: 7 * Self.day, trial: true) }
        for _ in 0...(index % 5) where start < nowMs { add(length: Self.month, trial: false) }
        if index % 50 == 0, let last = transactions.indices.last, !transactions[last].isTrialPeriod {
            transactions[last].cancellationDateMs = transactions[last].purchaseDateMs + 2 * Self.day
        }
        return FactsWrite(userID: "d\(index)", transactions: transactions, source: .receipt, prices: prices)
    }
}
