import Entitlements
import SQLDatabase

/// Keeps the `daily_rollup` read model (the dashboard's figures, docs/dashboard.md) in step
/// with the transactions, in the writer's transaction.
///
/// Each change to a chain's transactions first notes the chain's contributions
/// (``DailyRollup/contributions(of:)``) as the open transaction found them; before COMMIT,
/// ``applyRollup()`` adds, for every noted chain, its contributions now minus those noted. A
/// write its savepoint rolled back leaves its chains as noted, so it adds nothing; a duplicate
/// changes no transaction, so it adds nothing either.
extension FactsRecorder {
    /// Notes the contributions of the chain in `chainRow` before the open transaction first
    /// changes it; `isNew`: this transaction created it, so it contributed nothing.
    package func noteRollupChain(_ chainRow: Int64, isNew: Bool = false) throws {
        guard rollupBefore[chainRow] == nil else { return }
        rollupBefore[chainRow] = isNew ? [:] : DailyRollup.contributions(of: try rollupTransactions(chainRow: chainRow))
    }

    /// ``noteRollupChain(_:isNew:)`` for the chain `transactionID` is stored in, if it is stored.
    package func noteRollupChain(ofTransaction transactionID: String) throws {
        let find = statements.chainOfTransaction
        DB.bindDecimalID(transactionID, at: 1, of: find)
        let chainRow = try find.step() ? find.int64(at: 0) : nil
        find.reset()
        if let chainRow { try noteRollupChain(chainRow) }
    }

    /// Stores each price with its transaction, if stored and without one yet: the first price
    /// Apple signed for a transaction is its price.
    package func recordPrices(_ prices: [TransactionPrice]) throws {
        guard !prices.isEmpty else { return }
        let update = statements.recordPrice
        for price in prices {
            try noteRollupChain(ofTransaction: price.transactionID)
            update.bind(price.milliUnits, at: 1)
            update.bind(price.currency, at: 2)
            DB.bindDecimalID(price.transactionID, at: 3, of: update)
            try update.execute()
        }
    }

    /// Adds what the open transaction changed in the noted chains to `daily_rollup`, and
    /// forgets them. The writer calls it after a batch's writes, before COMMIT.
    package func applyRollup() throws {
        var delta: [RollupKey: Int64] = [:]
        let chains = try rollupTransactions(chainRows: Array(rollupBefore.keys))
        for (chainRow, before) in rollupBefore {
            let after = DailyRollup.contributions(of: chains[chainRow] ?? [])
            DailyRollup.add(DailyRollup.difference(from: before, to: after), to: &delta)
        }
        rollupBefore = [:]
        try add(delta)
    }

    /// The transactions of each chain in `chainRows`, as the rollup reads them: with one
    /// statement per ``WriterLimits/rollupChainsPerRead`` chains where the engine takes a list
    /// (one wait for a batch's chains on a server, instead of one each), else one per chain.
    private func rollupTransactions(chainRows: [Int64]) throws -> [Int64: [RollupTransaction]] {
        var chains: [Int64: [RollupTransaction]] = [:]
        guard let find = statements.rollupTransactionsOfChains else {
            for chainRow in chainRows { chains[chainRow] = try rollupTransactions(chainRow: chainRow) }
            return chains
        }
        var start = 0
        while start < chainRows.count {
            let end = min(start + WriterLimits.rollupChainsPerRead, chainRows.count)
            DB.bindRowIDList(Array(chainRows[start..<end]), at: 1, of: find)
            defer { find.reset() }
            while try find.step() {
                chains[find.int64(at: 0), default: []].append(RollupTransaction(row: find, at: 1))
            }
            start = end
        }
        return chains
    }

    /// Adds `cells` to `daily_rollup`.
    package func add(_ cells: [RollupKey: Int64]) throws {
        guard !cells.isEmpty else { return }
        let upsert = statements.addToRollup
        for (key, amount) in cells {
            upsert.bind(StorageCodes.code(key.environment), at: 1)
            upsert.bind(key.day.daysSince1970, at: 2)
            upsert.bind(key.counter.rawValue, at: 3)
            upsert.bind(key.currency, at: 4)
            upsert.bind(amount, at: 5)
            try db.executeDeferred(upsert)
        }
    }

    /// The transactions of the chain in `chainRow`, as the rollup reads them.
    package func rollupTransactions(chainRow: Int64) throws -> [RollupTransaction] {
        let find = statements.rollupTransactions
        find.bind(chainRow, at: 1)
        defer { find.reset() }
        var transactions: [RollupTransaction] = []
        while try find.step() { transactions.append(RollupTransaction(row: find, at: 0)) }
        return transactions
    }

    /// Fills `daily_rollup` from every stored chain when the migration that created it left a
    /// row in `daily_rollup_backfill` (a store with facts from before it), and deletes the row,
    /// in one write transaction; returns whether it did. Run when the store opens.
    package func backfillRollupIfPending() throws -> Bool {
        let pending = try db.prepare("SELECT 1 FROM daily_rollup_backfill")
        let isPending = try pending.step()
        pending.reset()
        guard isPending else { return false }
        let all = try db.prepare("SELECT chain_rowid, \(RollupSQL.columns) FROM transactions ORDER BY chain_rowid")
        defer { all.reset() }
        var totals: [RollupKey: Int64] = [:]
        var chain: [RollupTransaction] = []
        var chainRow: Int64?
        while try all.step() {
            let row = all.int64(at: 0)
            if row != chainRow {
                DailyRollup.add(DailyRollup.contributions(of: chain), to: &totals)
                chain.removeAll(keepingCapacity: true)
                chainRow = row
            }
            chain.append(RollupTransaction(row: all, at: 1))
        }
        DailyRollup.add(DailyRollup.contributions(of: chain), to: &totals)
        try add(totals)
        try db.execute("DELETE FROM daily_rollup_backfill")
        return true
    }
}

extension RollupTransaction {
    /// Decodes ``RollupSQL/columns`` starting at column `first`.
    package init(row: some SQLStatement, at first: Int32) {
        let currency = row.optionalString(at: first + 8)
        let price = row.optionalInt64(at: first + 7)
        let transactionID = row.string(at: first)
        self.init(
            transactionID: transactionID, purchaseDateMs: row.int64(at: first + 1),
            expiresDateMs: row.optionalInt64(at: first + 2), cancellationDateMs: row.optionalInt64(at: first + 3),
            isTrialPeriod: row.bool(at: first + 4), isUpgraded: row.bool(at: first + 5),
            environment: StorageCodes.environment(row.int64(at: first + 6)),
            price: price.map {
                TransactionPrice(transactionID: transactionID, milliUnits: $0, currency: currency ?? "")
            })
    }
}

/// The rollup's statements, held by ``FactsRecorder/Statements``.
enum RollupSQL {
    /// Columns of a `transactions` row as ``RollupTransaction/init(row:at:)`` reads them.
    static let columns = """
        transaction_id, purchase_date_ms, expires_date_ms, cancellation_date_ms, is_trial_period,
        is_upgraded, environment, price_milli, currency
        """
    static let chainTransactions = "SELECT \(columns) FROM transactions WHERE chain_rowid = ?"
    /// The chain's row id, then ``columns``, of the transactions of each chain in `chains`
    /// (``StorageEngine/rowIDListTable(_:)`` named `c`), each chain read as
    /// ``chainTransactions`` reads one. Why not `chain_rowid = ANY(list)` (or `IN`, or `OR`s):
    /// PostgreSQL's generic plan for it, made while the table was small, was a sequential scan
    /// that it kept as the table grew (3 ms a batch within seconds of a fresh benchmark, 126 ms
    /// at 40,000 rows); a lateral subquery kept apart from the join by `OFFSET 0` is planned as
    /// the one-chain statement is, an index lookup per chain.
    static func chainsTransactions(of chains: String) -> String {
        """
        SELECT c.id, t.* FROM \(chains)
        CROSS JOIN LATERAL (SELECT \(columns) FROM transactions WHERE chain_rowid = c.id OFFSET 0) AS t
        """
    }
    static let chainOfTransaction = "SELECT chain_rowid FROM transactions WHERE transaction_id = ?"
    static let recordPrice = """
        UPDATE transactions SET price_milli = ?, currency = ? WHERE transaction_id = ? AND price_milli IS NULL
        """
    static let add = """
        INSERT INTO daily_rollup (environment, day, counter, currency, amount) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (environment, day, counter, currency)
        DO UPDATE SET amount = daily_rollup.amount + excluded.amount
        """
}
