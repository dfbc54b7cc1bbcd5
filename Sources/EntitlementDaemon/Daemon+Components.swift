import AppStoreServerAPI
import EntitlementService
import Foundation
import HTTPCore
import HTTPServer
import RPCCore
import ServiceRuntime
import StorageCore
import Webhooks

/// Everything the daemon serves with, wired once over the open store and never changed:
/// ``Daemon/run()`` starts ``lifecycle`` and reads the rest.
struct Components {
    let store: any StoreBackend
    /// Readiness: `/readyz` and the gRPC health service, one verdict.
    let health: HealthService
    /// WatchEntitlementChanges' fan-out over the store's change log.
    let fanOut: ChangeFanOut
    /// Reconciliation with Apple's notification history; nil without the App Store Server API.
    let reconciler: NotificationReconciler?
    /// The first term's webhook dispatcher, the one the admin operations know; nil without
    /// --webhook-url.
    let webhookDispatcher: WebhookDispatcher?
    let singletonDuties: SingletonDuties
    /// nil for a SQLite file, whose one process holds the duties from startup.
    let lease: (any SingletonDutiesLease)?
    /// The service port: gRPC and the plain HTTP routes on one listener.
    let server: HTTPServer
    /// The admin listener (--admin-listen); nil keeps /metrics on the service port.
    let admin: HTTPServer?
    /// Every long-lived component, in start order.
    let lifecycle: ComponentGroup
}

extension Daemon {
    /// Builds every component over the open `store`, binding the listeners; nil when one
    /// cannot bind (logged, and what was built closed again, the store included).
    func makeComponents(store: any StoreBackend) async -> Components? {
        let webhookDispatchers = makeWebhookDispatchers(store: store)
        let webhookDispatcher = webhookDispatchers?()
        let appleClient = CurlAppleClient(maxConnectionsPerHost: verifierConfiguration.maxConcurrency)
        let apiClient = serverAPIClient(transport: appleClient)
        let fanOut = changeFanOut(store)
        let health = HealthService(storeReady: { store.readiness == .ready })
        let answerer = consumptionAnswerer(store: store, apiClient: apiClient)
        let testNotifications = TestNotifications()
        let (router, rpcs, appleOperations) = rpcRouter(
            store: store, health: health, appleClient: appleClient, apiClient: apiClient, fanOut: fanOut,
            answerer: answerer)
        let ingestor = NotificationIngestor(
            configuration: .init(
                sharedSecret: verifierConfiguration.sharedSecret, bundleID: verifierConfiguration.bundleID),
            verifier: jwsVerifier, repository: store, logger: logger, now: WallClock.unixMilliseconds,
            observeOwnership: { [serviceMetrics] in serviceMetrics.ownership($0) },
            consumptionRequested: { request in
                try await store.recordConsumptionRequest(request)
                answerer?.nudge()
            },
            testNotifications: testNotifications)
        let reconciler = makeReconciler(source: apiClient, ingestor: ingestor, progress: store)
        let operations = AdminOperations(
            outbox: store, webhookDispatcher: webhookDispatcher, accountTokens: store, reconciler: reconciler,
            console: console(rpcs: rpcs, store: store, webhooks: webhookDispatcher != nil,
                             orders: apiClient == nil ? nil : appleOperations),
            testNotifications: apiClient.map { (testNotifications, $0) }, apiClient: apiClient,
            refunds: RefundLookup(serverAPI: serverAPIPurchases(client: apiClient), repository: store))
        var http = HTTPRouter()
        http.add("GET", "/healthz", Daemon.healthzHandler())
        http.add("GET", "/readyz", Daemon.readyzHandler(health))
        if adminConfiguration == nil { http.add("GET", "/metrics", metricsHandler()) }
        Daemon.addAdminOperationsElsewhere(to: &http)
        Daemon.addConsoleElsewhere(to: &http)
        NotificationWebhook(ingestor: ingestor, logger: logger, observe: { [serviceMetrics] labels in
            serviceMetrics.notification(version: labels.version, type: labels.type, outcome: labels.outcome)
        }).register(into: &http)

        let server: HTTPServer
        do {
            // One port, two protocols: gRPC calls to the gRPC handler, the rest to the HTTP routes.
            let service = ContentTypeRouter(
                contentTypePrefix: GRPCHandler.contentType, to: grpcHandler(router), otherwise: http)
            server = try HTTPServer(configuration: serverConfiguration, service: service)
        } catch {
            logger.error("cannot listen", [("error", "\(error)")])
            await store.close()
            return nil
        }
        let admin: HTTPServer?
        do {
            admin = try adminServer(operations)
        } catch {
            logger.error("cannot listen on --admin-listen", [("error", "\(error)")])
            await server.shutdown(gracePeriod: .zero)
            await store.close()
            return nil
        }
        registerGauges(server: server, fanOut: fanOut, health: health)
        let singletonDuties = makeSingletonDuties(
            store: store, reconciler: reconciler, webhookDispatcher: webhookDispatcher,
            webhookDispatchers: webhookDispatchers, answerer: answerer)
        let lease = makeSingletonLease(store: store, feeding: singletonDuties)
        var listeners: [any Component] = []
        if let admin { listeners.append(ListenerComponent(server: admin, gracePeriod: .seconds(1))) }
        // Last to start, first to stop: health says NOT_SERVING and streams end before it drains.
        listeners.append(ListenerComponent(server: server, gracePeriod: gracePeriod, beforeDrain: {
            health.beginShutdown()
            fanOut.shutdown()
        }))
        let lifecycle = ComponentGroup(components: [
            StoreComponent(store: store),
            ChangeFanOutComponent(fanOut: fanOut),
            SingletonComponent(duties: singletonDuties, lease: lease),
        ] + listeners)
        return Components(
            store: store, health: health, fanOut: fanOut, reconciler: reconciler, webhookDispatcher: webhookDispatcher,
            singletonDuties: singletonDuties, lease: lease, server: server, admin: admin, lifecycle: lifecycle)
    }

    /// The RPC services: health, entitlement.v1 over the store, and any ``ExtraService``; with
    /// the entitlement.v1 handlers, which the console acts through too.
    private func rpcRouter(
        store: any StoreBackend, health: HealthService, appleClient: CurlAppleClient, apiClient: AppStoreServerClient?,
        fanOut: ChangeFanOut, answerer: ConsumptionAnswerer?
    ) -> (RPCRouter, EntitlementRPCs, AppleOperations) {
        var router = RPCRouter()
        health.register(into: &router)
        let serverAPI = serverAPIPurchases(client: apiClient)
        let verifier = ReceiptVerifier(
            configuration: verifierConfiguration,
            client: appleClient,
            now: WallClock.unixMilliseconds,
            observe: { [serviceMetrics] environment, outcome, seconds in
                serviceMetrics.appleCall(environment: environment, outcome: outcome, seconds: seconds)
            })
        let signedTransactions = SignedTransactionVerifier(
            verifier: jwsVerifier, bundleID: verifierConfiguration.bundleID)
        let receipts = ReceiptSubmission(
            verifier: verifier, signedTransactions: signedTransactions,
            repository: store, catalog: catalog,
            verifyCacheTTLMs: verifyCacheTTLMs, now: WallClock.unixMilliseconds,
            serverAPI: serverAPI, revisions: store, receiptRoute: receiptRoute,
            observeOwnership: { [serviceMetrics] in serviceMetrics.ownership($0) },
            setAccountToken: accountTokenSetter(serverAPI: serverAPI, tokens: store))
        let refresh = EntitlementRefresh(serverAPI: serverAPI, repository: store, revisions: store, catalog: catalog,
                                         now: WallClock.unixMilliseconds)
        let rpcs = EntitlementRPCs(repository: store, catalog: catalog, receipts: receipts,
                                   now: WallClock.unixMilliseconds, refresh: refresh, accountTokens: store,
                                   grants: store, logger: logger)
        rpcs.register(into: &router)
        let appleOperations = AppleOperations(
            serverAPI: serverAPI, repository: store, accountTokens: store, catalog: catalog,
            now: WallClock.unixMilliseconds, logger: logger, consumption: store, answerer: answerer)
        appleOperations.register(into: &router)
        fanOut.register(into: &router)
        for service in extraServices {
            service.register(store, &router)
            logger.warning("test-only service is served: this executable is for tests, never production",
                           [("service", service.name)])
        }
        return (router, rpcs, appleOperations)
    }

    /// The gRPC side of the service port: the router's calls, counted, and logged when they fail.
    private func grpcHandler(_ router: RPCRouter) -> GRPCHandler {
        let (rpcMetrics, logger) = (serviceMetrics.rpc, self.logger)
        return GRPCHandler(
            router: router,
            configuration: .init(maxReceiveMessageSize: maxMessageSize, maxBufferedStreamBytes: watchBufferBytes),
            authenticator: authenticator,
            observer: { call in
                rpcMetrics.record(method: call.method, code: call.code.rawValue, codeName: call.code.description,
                                  seconds: call.seconds)
                if call.code == .internal || call.code == .unavailable || call.code == .dataLoss {
                    var fields = [
                        ("request_id", call.requestID), ("method", call.method), ("code", call.code.description),
                    ]
                    if let cause = call.cause { fields.append(("cause", "\(cause)")) }
                    logger.warning("rpc failed", fields)
                } else if logger.minimumLevel <= .debug {
                    logger.debug("rpc", [("request_id", call.requestID), ("method", call.method),
                                         ("code", call.code.description), ("seconds", String(call.seconds))])
                }
            },
            reportFailure: { method, error in
                logger.error("handler failed", [("method", method), ("error", "\(error)")])
            })
    }

    /// The process gauges, read from the listeners, the fan-out and readiness at each scrape.
    private func registerGauges(server: HTTPServer, fanOut: ChangeFanOut, health: HealthService) {
        metrics.registerGauge("entitlementd_open_connections", help: "client connections open now") {
            Double(server.openConnections)
        }
        metrics.registerGauge(
            "entitlementd_active_requests", help: "requests (HTTP/2 streams, HTTP/1.1 requests) in flight"
        ) {
            Double(server.activeRequests)
        }
        metrics.registerGauge("process_resident_memory_bytes", help: "resident set size") { residentMemoryBytes() }
        let startSeconds = Double(startedAtMs) / 1_000
        metrics.registerGauge("process_start_time_seconds", help: "when the process started (Unix seconds)") {
            startSeconds
        }
        WatchMetrics.register(in: metrics, fanOut)
        Daemon.registerReadinessGauge(in: metrics, health)
    }
}
