import EntitlementService
import HTTPCore
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
                    logger.warning("PostgreSQL LISTEN connection dropped: cleared the facts cache, reconnecting; "
                                   + "/healthz answers 503 until it is back", [("error", reason)])
                case .ready:
                    logger.info("PostgreSQL LISTEN connection restored: /healthz answers 200 again")
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

    /// `GET /healthz`: 200 `ok` while the store can serve, else 503 with the reason, so a load
    /// balancer (haproxy's checks) takes a replica out that cannot reach its database or hear
    /// the other replicas' writes, and puts it back when it recovers. During a graceful drain
    /// it answers 503 `shutting down` as the gRPC health service answers NOT_SERVING: a balancer
    /// that still reaches this replica (a kept-alive check connection) takes it out rather than
    /// sending calls that would meet the final GOAWAY.
    static func healthzHandler(_ store: any StoreBackend, health: HealthService) -> HTTPRouter.Handler {
        { _, writer in
            if health.isShuttingDown {
                writer.respond(.text(503, "unavailable: shutting down\n"))
                return
            }
            switch store.readiness {
            case .ready: writer.respond(.text(200, "ok"))
            case let .unavailable(reason): writer.respond(.text(503, "unavailable: \(reason)\n"))
            }
        }
    }
}
