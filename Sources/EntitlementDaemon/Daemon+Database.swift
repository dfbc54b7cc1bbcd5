import ServiceRuntime
import SQLiteStore
import StorageCore

/// Opening the store `--database` names: a SQLite file, or PostgreSQL for replicas.
extension Daemon {
    /// Opens and migrates the store; logs why it cannot (the URL's password never appears: the
    /// location is redacted, and the PostgreSQL store's errors are).
    func openStore(_ configuration: EntitlementStore.Configuration) -> (any StoreBackend)? {
        let location = StoreLocation(flags.string("database")!)
        do {
            let poolSize = try DaemonFlags.databasePoolSize(flags)
            let logger = self.logger
            let store = try location.open(configuration: configuration, poolSize: poolSize) { readiness in
                switch readiness {
                case let .unavailable(reason):
                    // The reason says which: the LISTEN connection dropped, or the database is read-only.
                    logger.warning("PostgreSQL cannot take writes now: "
                                   + "/readyz answers 503 store_unavailable until it is back", [("error", reason)])
                case .ready:
                    logger.info("PostgreSQL LISTEN connection restored and the database takes writes: "
                                + "/readyz answers 200 again")
                }
            }
            if case .postgres = location {
                logger.info("store: PostgreSQL", [("database", location.redacted), ("pool_size", String(poolSize))])
            }
            return store
        } catch {
            logger.error("cannot open the database", [("database", location.redacted), ("error", "\(error)")])
            return nil
        }
    }
}
