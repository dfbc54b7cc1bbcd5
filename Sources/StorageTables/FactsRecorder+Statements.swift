import Entitlements
import SQLDatabase

/// The statements ``FactsRecorder`` runs for every write, held rather than looked up.
extension FactsRecorder {
    /// Prepared once per connection: the connection's cache finds a statement by hashing and
    /// comparing its SQL text (a few hundred bytes each, ~10 lookups per write), which profiling
    /// of the writer showed as 2-3 % of its time. Rare paths (transfers, refund reversals,
    /// upgrades, confirmations) still look theirs up.
    package struct Statements {
        package let findUser, insertUser, markProcessed, findChain, insertChain: DB.Statement
        /// ``FactsRecorderSQL/insertOwnerlessChainUnlessStored`` where the engine returns ids
        /// (``StorageEngine/returningIDClause``), else nil.
        package let insertOwnerlessChainUnlessStored: DB.Statement?
        /// ``FactsRecorderSQL/insertChainOfUserID`` where the engine returns ids, else nil.
        package let insertChainOfUserID: DB.Statement?
        package let storedTransaction, refundReversedAt, insertTransaction, updateTransaction: DB.Statement
        package let insertTransactionUnlessStored: DB.Statement
        /// ``FactsRecorderSQL/anyTransactionStored(width:)`` for each of ``FactsRecorderSQL/lookupWidths``.
        package let anyTransactionStored: [DB.Statement]
        package let findProductName, storeProductName, upsertRenewalInfo: DB.Statement
        package let insertHistoryEvent, insertPendingEvent: DB.Statement
        package let insertPointingHistoryEvent: DB.Statement
        package let userFactsFromTables, upsertUserFactsRecord: DB.Statement
        /// The daily rollup's (``FactsRecorder/applyRollup()``).
        package let rollupTransactions, chainOfTransaction, recordPrice, addToRollup: DB.Statement
        /// ``RollupSQL/chainsTransactions(of:)`` where the engine has list parameters.
        package let rollupTransactionsOfChains: DB.Statement?
        /// ``RowListSQL``'s insert where the engine binds lists (``StorageEngine/insertsRowLists``).
        package let insertTransactionList: DB.Statement?
        /// Where the engine returns ids and runs statements ahead, one ``AheadLane`` for each
        /// notification whose first stage may go with an earlier one's; none on SQLite.
        package let aheadLanes: [AheadLane]

        package init(_ db: DB) throws {
            findUser = try db.prepare(FactsRecorderSQL.findUser)
            insertUser = try db.prepare(FactsRecorderSQL.insertUser + DB.returningIDClause)
            markProcessed = try db.prepare(FactsRecorderSQL.markProcessed)
            findChain = try db.prepare(FactsRecorderSQL.findChain)
            insertChain = try db.prepare(FactsRecorderSQL.insertChain + DB.returningIDClause)
            insertOwnerlessChainUnlessStored = DB.returningIDClause.isEmpty ? nil
                : try db.prepare(FactsRecorderSQL.insertOwnerlessChainUnlessStored + DB.returningIDClause)
            insertChainOfUserID = DB.returningIDClause.isEmpty ? nil
                : try db.prepare(FactsRecorderSQL.insertChainOfUserID + DB.returningIDClause)
            storedTransaction = try db.prepare(FactsRecorderSQL.storedTransactionSQL)
            refundReversedAt = try db.prepare(FactsRecorderSQL.refundReversedAt)
            insertTransaction = try db.prepare(FactsRecorderSQL.insertTransaction)
            insertTransactionUnlessStored = try db.prepare(FactsRecorderSQL.insertTransactionUnlessStored)
            anyTransactionStored = try FactsRecorderSQL.lookupWidths.map {
                try db.prepare(FactsRecorderSQL.anyTransactionStored(width: $0))
            }
            updateTransaction = try db.prepare(FactsRecorderSQL.updateTransaction)
            findProductName = try db.prepare(FactsRecorderSQL.findProductName)
            storeProductName = try db.prepare(FactsRecorderSQL.storeProductName)
            upsertRenewalInfo = try db.prepare(FactsRecorderSQL.upsertRenewalInfo)
            insertHistoryEvent = try db.prepare(HistoryEvent.insertHistorySQL)
            insertPointingHistoryEvent = try db.prepare(HistoryEvent.insertPointingHistorySQL)
            insertPendingEvent = try db.prepare(FactsRecorderSQL.insertPendingEvent)
            userFactsFromTables = try db.prepare(UserFacts.tablesSQL)
            upsertUserFactsRecord = try db.prepare(UserFacts.upsertRecordSQL)
            rollupTransactions = try db.prepare(RollupSQL.chainTransactions)
            rollupTransactionsOfChains = try DB.rowIDListTable("c").map {
                try db.prepare(RollupSQL.chainsTransactions(of: $0))
            }
            chainOfTransaction = try db.prepare(RollupSQL.chainOfTransaction)
            recordPrice = try db.prepare(RollupSQL.recordPrice)
            addToRollup = try db.prepare(RollupSQL.add)
            insertTransactionList = DB.insertsRowLists ? try db.prepare(RowListSQL.insertTransactions) : nil
            aheadLanes = DB.returningIDClause.isEmpty ? [] : try (1...WriterLimits.notificationsAhead).map {
                try AheadLane(db, lane: $0,
                              insertOwnerlessChainSQL: FactsRecorderSQL.insertOwnerlessChainUnlessStored
                                  + DB.returningIDClause)
            }
        }
    }
}

/// ``FactsRecorder``'s SQL (a generic type cannot hold static stored properties).
package enum FactsRecorderSQL {
    package static let findUser = "SELECT id FROM users WHERE user_id = ?"
    /// Completed by ``StorageEngine/returningIDClause`` (read by ``FactsRecorder/returnedID(_:)``).
    package static let insertUser = "INSERT INTO users (user_id, created_at_ms) VALUES (?, ?)"
    package static let markProcessed = """
        INSERT INTO processed_sources (source, source_id, user_rowid, processed_at_ms)
        VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
        """
    package static let findChain = """
        SELECT c.id, c.user_rowid, u.user_id FROM chains c LEFT JOIN users u ON u.id = c.user_rowid
        WHERE c.original_transaction_id = ?
        """
    /// Completed by ``StorageEngine/returningIDClause`` as ``insertUser``.
    /// A notification's chain, sent before it is known to be new (its row comes back only when
    /// it was): completed by a RETURNING clause, so only where the engine has one.
    package static let insertOwnerlessChainUnlessStored = """
        INSERT INTO chains (original_transaction_id, user_rowid, owned_since_ms) VALUES (?, NULL, NULL)
        ON CONFLICT (original_transaction_id) DO NOTHING
        """
    package static let insertChain =
        "INSERT INTO chains (original_transaction_id, user_rowid, owned_since_ms) VALUES (?, ?, ?)"
    /// A new user's first chain, sent right behind the user's insert before its row is known
    /// (so found by the user's id): completed by a RETURNING clause, so only where the engine
    /// has one.
    package static let insertChainOfUserID = """
        INSERT INTO chains (original_transaction_id, user_rowid, owned_since_ms)
        SELECT CAST(?1 AS TEXT), id, CAST(?2 AS BIGINT) FROM users WHERE user_id = ?3
        """
    package static let storedTransactionSQL = """
        SELECT \(Transaction.selectColumns), t.id
        FROM transactions t JOIN chains c ON c.id = t.chain_rowid WHERE t.transaction_id = ?
        """
    /// How many ids one lookup binds: the narrowest that holds them (a shorter list repeats its
    /// last id, a longer one takes several lookups), so a receipt of 7 probes 8 ids, not 16.
    package static let lookupWidths = [4, 8, 16]
    /// Binds `width` transaction ids. One equality per id rather than `IN (...)`: PostgreSQL's
    /// generic plan for an IN list, made while the table was small, stayed a sequential scan
    /// (0.8 ms a run); an equality on a unique column is an index probe whatever the statistics.
    package static func anyTransactionStored(width: Int) -> String {
        (1...width).map { "SELECT 1 FROM transactions WHERE transaction_id = ?\($0)" }
            .joined(separator: " UNION ALL ") + " LIMIT 1"
    }
    package static let refundReversedAt = "SELECT reversed_at_ms FROM refund_reversals WHERE transaction_id = ?"
    /// Binds the product id (3) and group id (11) as their `product_names` rows
    /// (``FactsRecorder/productNameRow(_:)``).
    package static let insertTransaction = """
        INSERT INTO transactions (\(transactionColumns.map(\.name).joined(separator: ", ")))
        VALUES (\((1...transactionColumns.count).map { "?\($0)" }.joined(separator: ", ")))
        """
    /// The columns a new transaction is written with, in bind order (`FactsRecorder.bindInsert`
    /// and ``FactsRecorder/flushRowLists()``), and each one's type as a list parameter: one list,
    /// so the single-row and the list insert cannot name different columns.
    package static let transactionColumns: [(name: String, listType: String)] = [
        ("transaction_id", "TEXT"), ("chain_rowid", "BIGINT"), ("product_name_rowid", "BIGINT"),
        ("purchase_date_ms", "BIGINT"), ("original_purchase_date_ms", "BIGINT"), ("expires_date_ms", "BIGINT"),
        ("cancellation_date_ms", "BIGINT"), ("is_trial_period", "BIGINT"), ("is_in_intro_offer_period", "BIGINT"),
        ("is_upgraded", "BIGINT"), ("group_name_rowid", "BIGINT"), ("web_order_line_item_id", "TEXT"),
        ("in_app_ownership_type", "TEXT"), ("app_account_token", "TEXT"), ("environment", "BIGINT"),
        ("declared_product_type", "TEXT"),
    ]
    /// ``insertTransaction`` into a chain the write just created: nothing when the id is stored.
    package static let insertTransactionUnlessStored = insertTransaction + " ON CONFLICT (transaction_id) DO NOTHING"
    /// Binds the group id (4) as its `product_names` row, as ``insertTransaction``.
    package static let updateTransaction = """
        UPDATE transactions SET expires_date_ms = ?1, cancellation_date_ms = ?2, is_upgraded = ?3,
            group_name_rowid = ?4, web_order_line_item_id = ?5,
            in_app_ownership_type = ?6, app_account_token = ?7, declared_product_type = ?8
        WHERE id = ?9
        """
    package static let findProductName = "SELECT id FROM product_names WHERE name = ?1"
    /// Adds a product or group id to `product_names` unless it is there (names are compared
    /// byte for byte, never deleted or changed). NOT EXISTS first, so PostgreSQL does not spend
    /// an identity value on every write; the unique constraint stays the backstop.
    package static let storeProductName = """
        INSERT INTO product_names (name) SELECT ?1
        WHERE NOT EXISTS (SELECT 1 FROM product_names WHERE name = ?1)
        ON CONFLICT (name) DO NOTHING
        """
    /// Binds the auto-renew product id (3) as its `product_names` row, as ``insertTransaction``.
    package static let upsertRenewalInfo = """
        INSERT INTO renewal_infos (
            chain_rowid, auto_renew_status, auto_renew_product_name_rowid, is_in_billing_retry_period,
            grace_period_expires_date_ms, expiration_intent, signed_date_ms)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT (chain_rowid) DO UPDATE SET
            auto_renew_status = excluded.auto_renew_status,
            auto_renew_product_name_rowid = excluded.auto_renew_product_name_rowid,
            is_in_billing_retry_period = excluded.is_in_billing_retry_period,
            grace_period_expires_date_ms = excluded.grace_period_expires_date_ms,
            expiration_intent = excluded.expiration_intent,
            signed_date_ms = excluded.signed_date_ms
        WHERE excluded.signed_date_ms > renewal_infos.signed_date_ms
        """
    /// Checked against history_events too, so an id stays unique across both tables: `?12` is
    /// the id as history keeps it (``FactsRecorder/bind(_:owner:to:pending:)``).
    package static let insertPendingEvent = """
        INSERT INTO pending_events (
            event_id, chain_rowid, kind, occurred_at_ms, product_id, transaction_id,
            original_transaction_id, expires_at_ms, environment, source, apple_notification_type)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11
        WHERE NOT EXISTS (SELECT 1 FROM history_events WHERE event_id = ?12)
        ON CONFLICT (event_id) DO NOTHING
        """
}
