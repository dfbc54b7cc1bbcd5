import Entitlements

/// The read path's SQL: StorageCore's `StoreReader` and the change recorder's reads of a user
/// share it (a generic type cannot hold static stored properties).
package enum StoreReaderSQL {
    /// The user's transactions and renewal infos from the tables, by user row (the change
    /// recorder's before/after reads on the writer's connection).
    package static let userTransactionsSQL = """
        SELECT \(Transaction.selectColumns)
        FROM chains c JOIN transactions t ON t.chain_rowid = c.id WHERE c.user_rowid = ?
        """
    package static let userRenewalInfosSQL = """
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
    package static func historySQL(eventID: String, productFilter: Bool = false) -> String {
        let product = productFilter
            ? "AND COALESCE(h.product_id, \(ProductNameSQL.name("t.product_name_rowid"))) = ?5" : ""
        return """
            SELECT \(HistoryEvent.historyColumns(eventID: eventID)) FROM \(HistoryEvent.historyFrom)
            WHERE h.user_rowid = (SELECT id FROM users WHERE user_id = ?1) \(product)
                AND h.occurred_at_ms <= ?2 AND (h.occurred_at_ms < ?2 OR \(eventID) < ?3)
            ORDER BY h.occurred_at_ms DESC, \(eventID) DESC
            LIMIT ?4
            """
    }
}
