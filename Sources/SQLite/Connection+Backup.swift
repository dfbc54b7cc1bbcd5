internal import CSQLite
import Glibc

extension Connection {
    /// Copies this database, page by page, into a new file at `destination` with SQLite's online
    /// backup API, `pagesPerStep` pages at a time; `progress(copied, total)` after each step.
    ///
    /// The whole copy runs inside one read transaction on this connection, so every step reads
    /// the same snapshot: the copy is the database as of one commit, whatever commits while it
    /// runs. Without it, the backup API restarts from the first page whenever another connection
    /// commits, and on a busy store it would never finish. In WAL mode a reader never blocks the
    /// writer, so the server keeps committing meanwhile; the WAL only grows until the copy ends
    /// (the checkpointer cannot pass a snapshot still being read).
    ///
    /// `destination` must not exist: the caller picks a fresh name and renames it once done.
    public func backup(to destination: String, pagesPerStep: Int32,
                       progress: (_ copied: Int, _ total: Int) -> Void) throws {
        let target = try Connection(path: destination, options: .init(create: true))
        defer { target.close() }
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        // BEGIN DEFERRED takes no snapshot; the first read does, and every step then reuses it.
        _ = try scalarInt64("SELECT count(*) FROM sqlite_master")
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw target.error(sqlite3_extended_errcode(target.handle), sql: nil)
        }
        var stepCode: Int32 = SQLITE_OK
        while stepCode == SQLITE_OK || stepCode == SQLITE_BUSY || stepCode == SQLITE_LOCKED {
            if stepCode != SQLITE_OK { usleep(10_000) }
            stepCode = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(total - Int(sqlite3_backup_remaining(backup)), total)
        }
        let finishCode = sqlite3_backup_finish(backup)
        guard stepCode == SQLITE_DONE else {
            throw SQLiteError(extendedCode: stepCode,
                              message: "backup to \(destination) failed: \(String(cString: sqlite3_errstr(stepCode)))")
        }
        guard finishCode == SQLITE_OK else { throw target.error(finishCode, sql: nil) }
    }
}
