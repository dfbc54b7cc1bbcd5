import Entitlements

/// The daily rollup kept on write, as the SQL stores keep it: each write adds, for every chain
/// it touches, the difference between the chain's contributions after and before it
/// (``DailyRollup/contributions(of:)``).
extension StoredFacts {
    /// The chains a write of `transactions` and `reversedRefunds` may change: where each
    /// transaction is stored, or will be (its own chain, when new).
    func rollupChains(transactions: [Transaction], reversedRefunds: [String]) -> Set<String> {
        var chainIDs = Set(transactions.map { chainOfTransaction[$0.transactionID] ?? $0.originalTransactionID })
        chainIDs.formUnion(reversedRefunds.compactMap { chainOfTransaction[$0] })
        return chainIDs
    }

    func rollupContributions(of chainIDs: Set<String>) -> [String: [RollupKey: Int64]] {
        Dictionary(uniqueKeysWithValues: chainIDs.map { chainID in
            let chain = (chains[chainID]?.transactionIDs ?? []).compactMap { id in
                transactions[id].map { RollupTransaction($0, price: prices[id]) }
            }
            return (chainID, DailyRollup.contributions(of: chain))
        })
    }

    /// Runs `body` (a write), keeping its `prices` for the transactions it stored and the rollup
    /// in step; a write that throws has changed nothing, so nothing is added.
    mutating func maintainingRollup<Outcome>(
        transactions: [Transaction], reversedRefunds: [String], prices: [TransactionPrice],
        _ body: (inout StoredFacts) throws -> Outcome
    ) rethrows -> Outcome {
        let chainIDs = rollupChains(transactions: transactions, reversedRefunds: reversedRefunds)
        let before = rollupContributions(of: chainIDs)
        let outcome = try body(&self)
        for price in prices where self.transactions[price.transactionID] != nil
            && self.prices[price.transactionID] == nil {
            self.prices[price.transactionID] = price
        }
        for (chainID, after) in rollupContributions(of: chainIDs) {
            DailyRollup.add(DailyRollup.difference(from: before[chainID] ?? [:], to: after), to: &rollup)
        }
        return outcome
    }
}
