import EntitlementPorts
import SQLite
import StorageCore
import StorageTables

/// Opening a SQLite store's connections: the writer's durability settings, then migrations;
/// the readers' page cache and memory map.
package enum SQLiteFile {
    /// WAL lets readers run beside the writer; synchronous=FULL fsyncs the WAL at every commit,
    /// so an acknowledged write survives power loss; foreign keys as ``enforcesForeignKeys`` says.
    package static func openWriter(path: String, configuration: StoreConfiguration) throws -> Connection {
        let db: Connection
        do {
            db = try Connection(path: path, options: .init(busyTimeoutMs: configuration.busyTimeoutMs))
            // 1 KiB pages for new files (an existing file keeps its size): a group commit
            // dirties one leaf per index per write at random keys, and every dirty page is
            // copied into the WAL. Measured: 256 writers 17.6k -> 30k acknowledged writes/s,
            // 16 writers 7.9k -> 16k, reads unchanged.
            try db.execute("PRAGMA page_size = 1024")
            let mode = try db.scalarString("PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw StoreError(code: .storageFailure,
                                 message: "\(path) cannot use WAL mode (got \(mode ?? "nothing")); "
                                     + "point --database at a file on a local disk")
            }
            try db.execute("""
                PRAGMA synchronous = FULL;
                PRAGMA foreign_keys = \(Self.enforcesForeignKeys ? "ON" : "OFF");
                PRAGMA cache_size = -\(max(WriterCacheSize.minimumKiB, configuration.writerCacheKiB));
                PRAGMA wal_autocheckpoint = \(WriterLimits.walAutocheckpointPages);
                """)
        } catch {
            throw StoreError.storage(error, "opening the database at \(path)")
        }
        do {
            try Schema.migrate(db, nowMs: configuration.clock())
        } catch let error as MigrationError {
            switch error {
            case let .schemaTooNew(found, known):
                throw StoreError(
                    code: .schemaTooNew,
                    message: "database schema version \(found) is newer than this entitlementd "
                        + "knows (\(known)): upgrade entitlementd or point --database elsewhere",
                    cause: error)
            case .historyMismatch:
                throw StoreError(
                    code: .schemaMismatch,
                    message: "database migrations differ from this entitlementd's (\(error)): "
                        + "use the entitlementd that created it or point --database elsewhere",
                    cause: error)
            case .foreignKeyViolation:
                throw StoreError(code: .storageFailure,
                                 message: "migrating the database at \(path) failed: \(error)",
                                 cause: error)
            }
        } catch {
            throw StoreError.storage(error, "migrating the database at \(path)")
        }
        do {
            // After migrations, which may have grown the file (see WriterCacheSize for why).
            let pages = try db.scalarInt64("PRAGMA page_count") ?? 0
            let fileBytes = pages * (try db.scalarInt64("PRAGMA page_size") ?? 0)
            let cacheKiB = WriterCacheSize.kibibytes(configured: configuration.writerCacheKiB, fileBytes: fileBytes)
            try db.execute("PRAGMA cache_size = -\(cacheKiB)")
        } catch {
            throw StoreError.storage(error, "sizing the writer's page cache for \(path)")
        }
        return db
    }

    /// Whether SQLite checks every reference the writer stores: in debug builds, which every
    /// Swift test runs, yes; in release builds, no.
    ///
    /// The references (to `users`, `chains`, `product_names`, `webhook_endpoints`) are row ids
    /// the writer found or inserted earlier in the same transaction, and no statement deletes
    /// or re-keys a referenced row; no foreign key has an action (no `ON DELETE`), so checking
    /// changes no result, it only catches a writer bug. The check costs an index probe per
    /// reference per row, about 5 % of a distinct SubmitReceipt's instructions on the server.
    /// The price: in a release build a writer bug would store a dangling reference silently
    /// instead of failing that write. Every migration still ends with `PRAGMA
    /// foreign_key_check` (``Migrator``) whatever this says.
    #if DEBUG
    package static let enforcesForeignKeys = true
    #else
    package static let enforcesForeignKeys = false
    #endif

    /// A read connection: the writer made the file, so a missing one is an error.
    package static func openReader(path: String, configuration: StoreConfiguration) throws -> Connection {
        let db = try Connection(path: path, options: .init(create: false, busyTimeoutMs: configuration.busyTimeoutMs))
        // query_only rather than SQLITE_OPEN_READONLY: a read-write handle can still run the
        // WAL checkpoint and remove the -wal file if it happens to be the last one closed.
        try db.execute("""
            PRAGMA query_only = ON;
            PRAGMA cache_size = -\(max(64, configuration.readerCacheKiB));
            PRAGMA mmap_size = \(max(0, configuration.memoryMapBytes));
            """)
        return db
    }
}

extension WriterLimits {
    /// WAL pages after which the COMMIT that passes them copies the WAL into the database file
    /// (SQLite's default is 1,000 pages, 1 MiB with our 1 KiB pages).
    ///
    /// Why more: a checkpoint copies each page once however many frames the WAL holds of it, and
    /// a group commit rewrites the same interior and table-end pages batch after batch, so a
    /// longer WAL copies fewer pages per write. Measured (syscalls per write): one write per
    /// commit (`entitlementd-bench writes --writers 1`) pwrite 55.1 -> 53.9, pread 2.67 -> 1.49,
    /// fdatasync 1.08 -> 1.03; V2 ingest, where batches vary with load, pread 2.8-3.0 -> 1.6-2.2;
    /// 16,384 pages did no better. Durability is unchanged: every COMMIT still fsyncs the WAL before it is
    /// acknowledged, and a checkpoint moves only committed pages. The cost: the WAL file grows
    /// to ~4 MiB (it is reused, not truncated), and a reader that misses its page cache probes
    /// two WAL index segments instead of one.
    package static let walAutocheckpointPages = 4_096
}
