import EntitlementPorts
import Entitlements
import SQLDatabase
import StorageTables

/// One read connection (a WAL connection, or a pooled PostgreSQL one) with the read-path queries.
///
/// Used by one thread at a time: ``ReaderPool`` hands it out under its lock, which gives the
/// happens-before edge between successive users. Every query resets its statement before
/// returning, ending its read transaction so the next query sees the newest commit, except the
/// facts read of a SQLite store, which keeps one open across calls (``prepare(forFactsEpoch:)``).
package final class StoreReader<DB: StorageEngine>: @unchecked Sendable {
    package let db: DB
    /// The read transaction facts reads keep open: the cache epoch it began under and when.
    private var heldSnapshot: (epoch: UInt64, since: ContinuousClock.Instant)?
    /// How long a held snapshot serves at most, so that a change another process committed
    /// (which bumps no epoch of ours) is seen within this much time; ours are seen at once.
    package static var snapshotLifetime: Duration { .milliseconds(50) }
    /// Prepared once: `sqlite3_exec` would compile them on every snapshot (~3,000 instructions).
    private let beginSnapshot: DB.Statement?
    private let endHeldSnapshot: DB.Statement?
    // Held, not looked up: the facts read is the hot path, and a cache lookup would hash the SQL.
    private let userRecord: DB.Statement
    private let userTables: DB.Statement
    private let userGrants: DB.Statement
    /// The `product_names` rows records refer to (format 3), as this connection read them: a
    /// committed row never changes or goes, so each is read once.
    private var productNames: [Int64: String] = [:]
    private let productName: DB.Statement
    /// ``StoreReaderSQL/historySQL(eventID:productFilter:)`` for this engine, with and without
    /// the product filter.
    private let historySQL = StoreReaderSQL.historySQL(eventID: DB.historyEventIDText("h.event_id"))
    private let productHistorySQL = StoreReaderSQL.historySQL(eventID: DB.historyEventIDText("h.event_id"),
                                                              productFilter: true)

    /// Takes over `db`, opened and configured for reading by the store (``ReaderPool``'s opener).
    package init(db: DB) throws {
        self.db = db
        userRecord = try db.prepare(UserFacts.recordSQL)
        userTables = try db.prepare(UserFacts.tablesSQL)
        userGrants = try db.prepare(Grant.ofUserSQL)
        productName = try db.prepare("SELECT name FROM product_names WHERE id = ?")
        beginSnapshot = DB.holdsReadSnapshots ? try db.prepare("BEGIN DEFERRED") : nil
        endHeldSnapshot = DB.holdsReadSnapshots ? try db.prepare("COMMIT") : nil
    }

    package func close() { db.close() }

    /// Makes the connection ready for the next read. A facts read passes the cache's current
    /// ``FactsCache/epoch`` (read after its lookup missed) and runs in the read transaction the
    /// last facts read left open when that began under the same epoch less than
    /// ``snapshotLifetime`` ago; otherwise a new one begins (BEGIN DEFERRED: the snapshot is
    /// taken by the query, after the epoch was read). Any other read passes nil and runs as
    /// before, each query in its own transaction.
    ///
    /// Why: beginning and ending SQLite's read transaction (the WAL read lock, the WAL-index
    /// header check, and the page cache dropped whenever the WAL changed) was ~2,900 of the
    /// ~17,800 instructions of a facts-cache miss (callgrind, uniform reads over 1M users).
    /// Why it is exact: the writer bumps the epoch after every COMMIT and before resuming any
    /// caller, so a read that follows an acknowledged write sees a new epoch and a new snapshot;
    /// a read that reuses an older one overlapped the write it does not see.
    package func prepare(forFactsEpoch epoch: UInt64?) throws {
        guard DB.holdsReadSnapshots else { return }
        if let epoch, let held = heldSnapshot, held.epoch == epoch, db.isInTransaction,
           ContinuousClock.now - held.since < Self.snapshotLifetime {
            return
        }
        try endSnapshot()
        guard let epoch, let beginSnapshot else { return }
        try beginSnapshot.execute()
        heldSnapshot = (epoch, .now)
    }

    /// Ends the read transaction a facts read left open, if any: a reader idle in the pool
    /// would otherwise keep the WAL from being checkpointed past its snapshot while the writer
    /// goes on (``ReaderPool/endIdleSnapshots()``).
    package func endSnapshot() throws {
        heldSnapshot = nil
        if db.isInTransaction, let endHeldSnapshot { try endHeldSnapshot.execute() }
    }

    /// The user's facts: the read model's record (one lookup), or the tables when there is none.
    ///
    /// Two statements, two snapshots, and that is fine: the writer puts a record in the same
    /// transaction as every change to the user's facts, so whichever snapshot answers, it holds
    /// a committed, complete state of the user.
    package func facts(userID: String) throws -> UserFacts {
        var facts = try UserFacts.readRecord(userRecord, userID: userID, name: productName(row:))
            ?? UserFacts.readTables(userTables, userID: userID)
        // Grants are not in the record: few users have any, and the record's format stays as is.
        userGrants.bind(userID, at: 1)
        facts.grants = try Grant.read(userGrants)
        return facts
    }

    /// The name in `product_names` row `row`, read in the record's snapshot the first time (the
    /// writer stores a name before, or with, any record that refers to it); nil if there is no
    /// such row or it cannot be read, and the record is then read as malformed (the tables
    /// answer).
    private func productName(row: Int64) -> String? {
        if let known = productNames[row] { return known }
        productName.bind(row, at: 1)
        defer { productName.reset() }
        guard (try? productName.step()) == true else { return nil }
        let name = productName.string(at: 0)
        productNames[row] = name
        return name
    }

    /// Up to `limit` events strictly older than `cursor` in (occurred_at_ms, event_id) order.
    package func history(userID: String, productID: String?, before cursor: HistoryCursor?, limit: Int) throws
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
