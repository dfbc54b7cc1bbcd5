import EntitlementPorts
import Entitlements
import SQLDatabase

/// One read connection (a WAL connection, or a pooled PostgreSQL one) with the read-path queries.
///
/// Used by one thread at a time: ``ReaderPool`` hands it out under its lock, which gives the
/// happens-before edge between successive users. Every query resets its statement before
/// returning, ending its read transaction so the next query sees the newest commit.
final class StoreReader<DB: StorageEngine>: @unchecked Sendable {
    let db: DB
    // Held, not looked up: the facts read is the hot path, and a cache lookup would hash the SQL.
    private let userRecord: DB.Statement
    private let userTables: DB.Statement
    /// ``StoreReaderSQL/historySQL(eventID:productFilter:)`` for this engine, with and without
    /// the product filter.
    private let historySQL = StoreReaderSQL.historySQL(eventID: DB.historyEventIDText("h.event_id"))
    private let productHistorySQL = StoreReaderSQL.historySQL(eventID: DB.historyEventIDText("h.event_id"),
                                                              productFilter: true)

    /// Takes over `db`, opened and configured for reading by the store (``ReaderPool``'s opener).
    init(db: DB) throws {
        self.db = db
        userRecord = try db.prepare(UserFacts.recordSQL)
        userTables = try db.prepare(UserFacts.tablesSQL)
    }

    func close() { db.close() }

    /// The user's facts: the read model's record (one lookup), or the tables when there is none.
    ///
    /// Two statements, two snapshots, and that is fine: the writer puts a record in the same
    /// transaction as every change to the user's facts, so whichever snapshot answers, it holds
    /// a committed, complete state of the user.
    func facts(userID: String) throws -> UserFacts {
        if let facts = try UserFacts.readRecord(userRecord, userID: userID) { return facts }
        return try UserFacts.readTables(userTables, userID: userID)
    }

    /// Up to `limit` events strictly older than `cursor` in (occurred_at_ms, event_id) order.
    func history(userID: String, productID: String?, before cursor: HistoryCursor?, limit: Int) throws
        -> [HistoryEvent] {
        let query = try db.prepare(productID == nil ? historySQL : productHistorySQL)
        query.bind(userID, at: 1)
        query.bind(cursor?.occurredAtMs ?? Int64.max, at: 2)
        query.bind(cursor?.eventID ?? "", at: 3)
        query.bind(limit, at: 4)
        if let productID { query.bind(productID, at: 5) }
        defer { query.reset() }
        var events: [HistoryEvent] = []
        while try query.step() {
            events.append(HistoryEvent(row: query))
        }
        return events
    }
}

/// ``StoreReader``'s SQL (a generic type cannot hold static stored properties).
enum StoreReaderSQL {
    /// The user's transactions and renewal infos from the tables, by user row (the change
    /// recorder's before/after reads on the writer's connection).
    static let userTransactionsSQL = """
        SELECT \(Transaction.selectColumns)
        FROM chains c JOIN transactions t ON t.chain_rowid = c.id WHERE c.user_rowid = ?
        """
    static let userRenewalInfosSQL = """
        SELECT \(RenewalInfo.selectColumns)
        FROM chains c JOIN renewal_infos r ON r.chain_rowid = c.id WHERE c.user_rowid = ?
        """
    /// A page of a user's history (`?1`) older than the cursor (`?2`, `?3`), newest first, at
    /// most `?4` events; with `productFilter`, only product `?5`'s. `eventID` is the SQL of the
    /// id's text (``StorageEngine/historyEventIDText(_:)``): events of one millisecond sort and
    /// page by their ids' bytes whatever form SQLite stores them in.
    ///
    /// The time bound is a range on the clustered key, so deep pages cost no more than the
    /// first; SQLite sorts only the events of each millisecond by id, as it walks the key
    /// backwards. With no cursor, (Int64.max, "") sorts after every real event.
    static func historySQL(eventID: String, productFilter: Bool = false) -> String {
        let product = productFilter
            ? "AND COALESCE(h.product_id, \(Schema.productName("t.product_name_rowid"))) = ?5" : ""
        return """
            SELECT \(HistoryEvent.historyColumns(eventID: eventID)) FROM \(HistoryEvent.historyFrom)
            WHERE h.user_rowid = (SELECT id FROM users WHERE user_id = ?1) \(product)
                AND h.occurred_at_ms <= ?2 AND (h.occurred_at_ms < ?2 OR \(eventID) < ?3)
            ORDER BY h.occurred_at_ms DESC, \(eventID) DESC
            LIMIT ?4
            """
    }
}
