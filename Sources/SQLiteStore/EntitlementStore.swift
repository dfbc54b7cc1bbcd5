import EntitlementPorts
import SQLite
import StorageCore

/// The SQLite store: one database file, one writer thread, cached reads (``SQLStore`` on
/// SQLite's connection). Writes commit with synchronous=FULL, so a caller is answered only once
/// its write is on disk; read connections use WAL and never wait for the writer.
public typealias EntitlementStore = SQLStore<Connection>

extension SQLStore where DB == Connection {
    public init(path: String, transferPolicy: TransferPolicy = .transfer) throws {
        try self.init(path: path, configuration: Configuration(transferPolicy: transferPolicy))
    }

    /// Opens (creating if needed) and migrates the database; the writer thread starts with
    /// ``start()`` or ``run()``, and writes queue until then. Reads work at once.
    ///
    /// Throws ``StoreError/Code/schemaTooNew`` if a newer entitlementd wrote the file.
    public init(path: String, configuration: Configuration) throws {
        let db = try SQLiteFile.openWriter(path: path, configuration: configuration)
        let readers = ReaderPool { try SQLiteFile.openReader(path: path, configuration: configuration) }
        try self.init(writerConnection: db, readers: readers, location: path, configuration: configuration)
    }

    /// The database file.
    public nonisolated var path: String { location }

}
