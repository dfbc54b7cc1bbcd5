import EntitlementPorts
import Entitlements
import StorageCore

/// The shared bench data set (shared/bench/README.md "Data set", the C++ peer's `Store`), as
/// facts: user `u<i>` owns one `pro.monthly` renewal chain of `transactionsPerUser` monthly
/// transactions; even `i` ends ACTIVE (expires 30 days from now, auto-renew on), odd `i` ended
/// 30 days ago (auto-renew off). Ids follow the peer's (`1000000<i>` original, `2000000<i>`
/// latest) so both servers' answers carry the same values. Web order line item ids (not in any
/// answer) are shaped as Apple's: 16-digit numbers from one counter, a user's renewals a
/// million apart, as if a million other renewals had happened in between.
struct BenchData {
    static let product = "pro.monthly"
    static let group = "grp.pro"
    static let day: Int64 = 86_400_000
    /// Where the web order ids start: 16 digits, as Apple's ("2000000013429558").
    static let firstWebOrder = 2_000_000_000_000_000

    let transactionsPerUser: Int
    let nowMs: Int64

    func write(user index: Int) -> FactsWrite {
        let originalID = "1000000\(index)"
        let active = index.isMultiple(of: 2)
        // The peer's latest purchase and expiry; earlier renewals step back one period each.
        let lastPurchase = active ? nowMs - Self.day : nowMs - 60 * Self.day
        let lastExpiry = active ? nowMs + 30 * Self.day : nowMs - 30 * Self.day
        let period = lastExpiry - lastPurchase
        let firstPurchase = lastPurchase - Int64(transactionsPerUser - 1) * period
        let transactions = (0..<transactionsPerUser).map { renewal in
            let purchase = firstPurchase + Int64(renewal) * period
            return Transaction(
                transactionID: transactionID(renewal, index), originalTransactionID: originalID,
                productID: Self.product, purchaseDateMs: purchase, originalPurchaseDateMs: firstPurchase,
                expiresDateMs: purchase + period, subscriptionGroupIdentifier: Self.group,
                webOrderLineItemID: String(Self.firstWebOrder + renewal * 1_000_000 + index),
                inAppOwnershipType: "PURCHASED")
        }
        let renewal = RenewalInfo(
            originalTransactionID: originalID, autoRenewStatus: active,
            autoRenewProductID: Self.product, expirationIntent: active ? nil : 1, signedDateMs: nowMs)
        return FactsWrite(userID: "u\(index)", transactions: transactions, renewalInfos: [renewal],
                          source: .receipt)
    }

    /// The first renewal carries the chain's original id (as Apple's do), the last the peer's
    /// latest id; the ones between get their own prefix.
    private func transactionID(_ renewal: Int, _ index: Int) -> String {
        if renewal == 0 { return "1000000\(index)" }
        if renewal == transactionsPerUser - 1 { return "2000000\(index)" }
        return "\(renewal + 2)000000\(index)"
    }
}
