import EntitlementService
import HTTPServer
import StorageCore

/// The store: its writer starts first and closes last, committing what the drained requests
/// wrote and checkpointing (SQLite's WAL).
struct StoreComponent: Component {
    let store: any StoreBackend

    func start() { store.start() }
    func run() async { await store.run() }
    func shutdown() async { await store.close() }
}

/// WatchEntitlementChanges' fan-out: subscribed to the store's commits before any listener
/// can take a watch call.
struct ChangeFanOutComponent: Component {
    let fanOut: ChangeFanOut

    func start() throws(ComponentStartFailure) {
        do {
            try fanOut.start()
        } catch {
            throw ComponentStartFailure(message: "cannot read the change log", cause: error)
        }
    }

    func run() async { await fanOut.run() }

    /// Ends what the service port's drain has not ended already (it ends the streams first).
    func shutdown() async { fanOut.shutdown() }
}

/// The work one replica runs, and the lease that decides which: stopped before the lease is
/// released, so two replicas never run the duties at once by our doing.
struct SingletonComponent: Component {
    let duties: SingletonDuties
    /// nil for a SQLite file, whose one process holds the duties from startup.
    let lease: (any SingletonDutiesLease)?

    func start() {
        if lease == nil { duties.leaseChanged(.acquired) }
    }

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            if let lease { group.addTask { await lease.run() } }
            await duties.run()
        }
    }

    func shutdown() async {
        // Before the store closes: the outcomes of finished deliveries are recorded. Before the
        // lease is released: another replica may take over at once.
        await duties.stop()
        await lease?.stop()
    }
}

/// A listener: the service port or the admin port.
struct ListenerComponent: Component {
    let server: HTTPServer
    /// How long in-flight requests may take to finish once shutdown begins.
    let gracePeriod: Duration
    /// Runs as shutdown begins, before the drain: the service port says NOT_SERVING and ends
    /// the watch streams, which never finish by themselves and would hold the grace period.
    var beforeDrain: @Sendable () -> Void = {}

    func start() { server.start() }
    func run() async { await server.run() }

    func shutdown() async {
        beforeDrain()
        await server.shutdown(gracePeriod: gracePeriod)
    }
}
