import Entitlements
import SQLite

/// One read-only WAL connection with the read-path queries.
///
/// Used by one thread at a time: ``ReaderPool`` hands it out under its lock, which gives the
/// happens-before edge between successive users. Every query resets its statement before
/// returning, ending its read transaction so the next query sees the newest commit.
final class StoreReader: @unchecked Sendable {
    private let db: Connection

    init(path: String, busyTimeoutMs: Int32) throws {
        db = try Connection(path: path, options: .init(create: false, busyTimeoutMs: busyTimeoutMs))
        // query_only rather than SQLITE_OPEN_READONLY: a read-write handle can still run the
        // WAL checkpoint and remove the -wal file if it happens to be the last one closed.
        try db.execute("PRAGMA query_only = ON")
    }

    func close() { db.close() }

    func facts(userID: String) throws -> UserFacts {
        var facts = UserFacts()
        let transactions = try db.prepare("""
            SELECT \(Transaction.selectColumns)
            FROM users u JOIN chains c ON c.user_rowid = u.id JOIN transactions t ON t.chain_rowid = c.id
            WHERE u.user_id = ?
            """)
        transactions.bind(userID, at: 1)
        defer { transactions.reset() }
        while try transactions.step() {
            facts.transactions.append(Transaction(row: transactions))
        }
        transactions.reset()
        let renewals = try db.prepare("""
            SELECT \(RenewalInfo.selectColumns)
            FROM users u JOIN chains c ON c.user_rowid = u.id JOIN renewal_infos r ON r.chain_rowid = c.id
            WHERE u.user_id = ?
            """)
        renewals.bind(userID, at: 1)
        defer { renewals.reset() }
        while try renewals.step() {
            let info = RenewalInfo(row: renewals)
            facts.renewalInfos[info.originalTransactionID] = info
        }
        return facts
    }

    /// Up to `limit` events strictly older than `cursor` in (occurred_at_ms, event_id) order.
    func history(userID: String, productID: String?, before cursor: HistoryCursor?, limit: Int) throws
        -> [HistoryEvent] {
        // The row-value comparison is a range on the index, so deep pages cost no more than the
        // first; with no cursor, (Int64.max, "") sorts after every real event.
        let productClause = productID == nil ? "" : "AND h.product_id = ?4"
        let query = try db.prepare("""
            SELECT \(HistoryEvent.selectColumns) FROM history_events h
            WHERE h.user_rowid = (SELECT id FROM users WHERE user_id = ?1)
                \(productClause)
                AND (h.occurred_at_ms, h.event_id) < (?2, ?3)
            ORDER BY h.occurred_at_ms DESC, h.event_id DESC
            LIMIT ?5
            """)
        query.bind(userID, at: 1)
        query.bind(cursor?.occurredAtMs ?? Int64.max, at: 2)
        query.bind(cursor?.eventID ?? "", at: 3)
        query.bind(productID, at: 4)
        query.bind(limit, at: 5)
        defer { query.reset() }
        var events: [HistoryEvent] = []
        events.reserveCapacity(limit)
        while try query.step() {
            events.append(HistoryEvent(row: query))
        }
        return events
    }
}
