import EntitlementService
import ServiceRuntime
import StorageCore
import Synchronization
import Webhooks

/// The singleton work: on PostgreSQL every replica runs a ``SingletonLease`` and only
/// the holder reconciles, delivers webhooks and runs the store's timed duties (due changes,
/// retention, baseline); on SQLite the one process holds it from startup.
extension Daemon {
    /// The duties this daemon has, gated together; the gauge reads whether they run here.
    /// `webhookDispatcher` serves the first lease term, `webhookDispatchers` builds the later ones.
    func makeSingletonDuties(
        store: any StoreBackend, reconciler: NotificationReconciler?, webhookDispatcher: WebhookDispatcher?,
        webhookDispatchers: (@Sendable () -> WebhookDispatcher)?, answerer: ConsumptionAnswerer?
    ) -> SingletonDuties {
        var duties: [SingletonDuties.Duty] = []
        if let answerer {
            let task = Mutex<Task<Void, Never>?>(nil)
            duties.append(.init(
                name: "consumption answers",
                start: {
                    let started = Task { await answerer.runPeriodically(every: .seconds(5)) }
                    task.withLock { $0 = started }
                },
                stop: {
                    let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
                    running?.cancel()
                    await running?.value
                }))
        }
        if let reconciler, let interval = reconcileInterval {
            logger.info("reconciling Apple's notification history periodically while holding the singleton lease",
                        [("interval", "\(interval)")])
            let task = Mutex<Task<Void, Never>?>(nil)
            duties.append(.init(
                name: "reconciliation",
                start: {
                    let started = Task { await reconciler.runPeriodically(every: interval) }
                    task.withLock { $0 = started }
                },
                stop: {
                    let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
                    running?.cancel()
                    await running?.value
                }))
        } else {
            logReconciliationOff(hasReconciler: reconciler != nil)
        }
        if let first = webhookDispatcher, let build = webhookDispatchers {
            // The first term runs the dispatcher the admin operations know (replay only
            // enqueues, so it works on any replica), later terms fresh ones.
            let unused = Mutex<WebhookDispatcher?>(first)
            let running = Mutex<(WebhookDispatcher, Task<Void, Never>)?>(nil)
            duties.append(.init(
                name: "webhooks",
                start: {
                    let dispatcher = unused.withLock { unused in
                        defer { unused = nil }
                        return unused
                    } ?? build()
                    let task = Task { await dispatcher.run() }
                    running.withLock { $0 = (dispatcher, task) }
                },
                stop: {
                    guard let (dispatcher, task) = running.withLock({ running in
                        defer { running = nil }
                        return running
                    }) else { return }
                    await dispatcher.stop()
                    await task.value
                }))
        }
        duties.append(.init(
            name: "store",
            start: { store.setSingletonDuties(active: true) },
            stop: { store.setSingletonDuties(active: false) }))
        let singleton = SingletonDuties(duties: duties, logger: logger)
        metrics.registerGauge(
            "entitlementd_singleton_lease_held",
            help: "1 while this replica holds the singleton lease and runs reconciliation, webhook delivery "
                + "and the store's timed duties (always 1 on SQLite)"
        ) { singleton.isActive ? 1 : 0 }
        return singleton
    }

    /// The store's lease, reporting to `duties`; nil for a SQLite file, whose one process
    /// holds the duties from startup.
    func makeSingletonLease(store: any StoreBackend, feeding duties: SingletonDuties) -> (any SingletonDutiesLease)? {
        store.makeSingletonLease(onChange: duties.leaseChanged)
    }
}
