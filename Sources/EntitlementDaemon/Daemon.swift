import AppStoreServerAPI
import EntitlementPorts
import Entitlements
import EntitlementService
import Foundation
import HTTPCore
import HTTPServer
import JWS
import PostgreSQLStore
import RPCCore
import ServiceRuntime
import SQLiteStore
import StorageCore
import Webhooks

/// Wires the components together and owns the process lifecycle.
final class Daemon {
    let flags: ParsedFlags
    let logger: Logger
    let metrics = MetricsRegistry()
    lazy var serviceMetrics = ServiceMetrics(registry: metrics)
    let health = HealthService()
    let authenticator: BearerTokenAuthenticator?
    let serverConfiguration: ServerConfiguration
    /// --max-message-size: the largest gRPC request message.
    let maxMessageSize: Int
    /// The admin listener (/metrics, admin operations), or nil to keep /metrics on the service port.
    let adminConfiguration: ServerConfiguration?
    let gracePeriod: Duration
    let catalog: Catalog
    let transferPolicy: TransferPolicy
    /// --database-mmap-mib in bytes (SQLite's read connections).
    let memoryMapBytes: Int
    let verifierConfiguration: ReceiptVerifier.Configuration
    let verifyCacheTTLMs: Int64?
    /// --watch-buffer-bytes: unread bytes a streaming call may leave before it is ended.
    let watchBufferBytes: Int
    /// --change-retention; nil keeps every change.
    let changeRetentionMs: Int64?
    let jwsVerifier: JWSVerifier
    /// The App Store Server API (Daemon+ServerAPI.swift); nil without --app-store-key.
    let serverAPIConfiguration: AppStoreServerClient.Configuration?
    let receiptRoute: ReceiptRoute
    let extraServices: [ExtraService]
    /// --reconcile-interval (nil: 0, off) and the reconciler run() builds (Daemon+Reconciliation).
    let reconcileInterval: Duration?
    var reconciler: NotificationReconciler?
    /// --webhook-url and its settings; nil without one.
    let webhookConfiguration: WebhookDispatcher.Configuration?
    /// Set in ``run()`` once the store is open; the admin operations read them.
    var webhookDispatcher: WebhookDispatcher?
    /// Builds a dispatcher for each singleton lease term after the first (Daemon+SingletonDuties).
    var webhookDispatchers: (@Sendable () -> WebhookDispatcher)?
    var webhookOutbox: (any WebhookOutbox)?
    /// The open store's tokens and chain owners, for the owners admin operation.
    var accountTokens: (any AccountTokens)?
    /// Opened by SIGTERM or SIGINT; ``run()`` then shuts everything down.
    let shutdownRequested = Latch()

    /// `webhookSchedule` is the production ``RetrySchedule/standard``; only the test executable
    /// passes a faster one.
    init(flags: ParsedFlags, extraServices: [ExtraService] = [], webhookSchedule: RetrySchedule = .standard) throws {
        self.flags = flags
        self.extraServices = extraServices
        webhookConfiguration = try DaemonFlags.webhookConfiguration(flags, schedule: webhookSchedule)
        guard let level = Logger.Level(name: flags.string("log-level")!) else {
            throw FlagError("--log-level must be debug, info, warning or error")
        }
        guard let format = Logger.Format(rawValue: flags.string("log-format")!) else {
            throw FlagError("--log-format must be text or json")
        }
        logger = Logger(minimumLevel: level, format: format)
        maxMessageSize = try DaemonFlags.maxMessageSize(flags)
        serverConfiguration = try DaemonFlags.serverConfiguration(
            flags, cores: ProcessInfo.processInfo.activeProcessorCount)
        adminConfiguration = try DaemonFlags.adminConfiguration(flags, service: serverConfiguration)
        gracePeriod = try flags.duration("shutdown-grace-period")!
        guard let policy = TransferPolicy(rawValue: flags.string("transfer-policy")!) else {
            throw FlagError("--transfer-policy must be transfer or reject")
        }
        transferPolicy = policy
        memoryMapBytes = try DaemonFlags.databaseMemoryMapBytes(flags)
        catalog = try Daemon.loadCatalog(flags.string("catalog"))
        verifierConfiguration = try Daemon.verifierConfiguration(flags)
        jwsVerifier = JWSVerifier(trustedRoots: try Daemon.trustedRoots(flags.string("apple-root-ca")))
        verifyCacheTTLMs = try flags.duration("verify-cache-ttl").map(\.inMilliseconds)
        watchBufferBytes = try flags.int("watch-buffer-bytes", range: 4096...(64 << 20))!
        reconcileInterval = try DaemonFlags.reconcileInterval(flags)
        changeRetentionMs = try Daemon.changeRetentionMs(flags)
        serverAPIConfiguration = try DaemonFlags.serverAPIConfiguration(flags)
        receiptRoute = try DaemonFlags.receiptRoute(flags, hasKey: serverAPIConfiguration != nil)
        if let path = flags.string("auth-tokens-file") {
            let tokens = BearerTokenAuthenticator(fileContents: try Daemon.readTokens(path))
            // Likely a file not filled in yet; serving would refuse every call, so say so now.
            guard tokens.tokenCount > 0 else {
                throw FlagError("--auth-tokens-file \(path) holds no tokens (blank lines and # comments are skipped): "
                                + "add one token per line")
            }
            authenticator = tokens
        } else {
            authenticator = nil
        }
    }

    /// The tokens file's text; refused when others can read it, at startup and on SIGHUP alike.
    static func readTokens(_ path: String) throws -> String {
        do {
            return try SecretFile.read(path)
        } catch {
            throw FlagError("--auth-tokens-file: \(error)")
        }
    }

    static func verifierConfiguration(_ flags: ParsedFlags) throws -> ReceiptVerifier.Configuration {
        func url(_ name: String) throws -> URL {
            guard let text = flags.string(name), let url = URL(string: text),
                url.scheme == "https" || url.scheme == "http"
            else {
                throw FlagError("--\(name) must be an http(s) URL")
            }
            return url
        }
        return ReceiptVerifier.Configuration(
            productionURL: try url("apple-production-url"), sandboxURL: try url("apple-sandbox-url"),
            sharedSecret: flags.string("apple-shared-secret"), bundleID: flags.string("bundle-id"),
            maxConcurrency: try flags.int("apple-max-concurrency", range: 1...10_000)!,
            maxAttempts: try flags.int("apple-max-attempts", range: 1...20)!)
    }

    static func trustedRoots(_ path: String?) throws -> TrustedRoots {
        guard let path else { return .appleRootCAG3 }
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw FlagError("--apple-root-ca \(path) cannot be read")
        }
        do {
            return try TrustedRoots(pem: pem)
        } catch {
            throw FlagError("--apple-root-ca \(path): \(error)")
        }
    }

    static func loadCatalog(_ path: String?) throws -> Catalog {
        guard let path else { return .empty }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FlagError("--catalog \(path) cannot be read")
        }
        do {
            return try Catalog(jsonBytes: Array(data), sourceName: path)
        } catch {
            throw FlagError("--catalog: \(error)")
        }
    }

    /// Serves until SIGTERM or SIGINT, then drains and returns the exit code.
    func run() async -> Int32 {
        raiseOpenFilesLimit()
        let serviceMetrics = self.serviceMetrics
        var configuration = EntitlementStore.Configuration(
            transferPolicy: transferPolicy, memoryMapBytes: memoryMapBytes,
            onCommit: { size, seconds in serviceMetrics.storeCommitted(batchSize: size, seconds: seconds) })
        configureChangeLog(&configuration)
        guard let store = openStore(configuration) else { return 1 }
        webhookOutbox = store
        accountTokens = store
        webhookDispatchers = makeWebhookDispatchers(store: store)
        webhookDispatcher = webhookDispatchers?()
        var router = RPCRouter()
        health.register(into: &router)
        let appleClient = CurlAppleClient(maxConnectionsPerHost: verifierConfiguration.maxConcurrency)
        let apiClient = serverAPIClient(transport: appleClient)
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
        EntitlementRPCs(repository: store, catalog: catalog, receipts: receipts, now: WallClock.unixMilliseconds,
                        refresh: refresh, accountTokens: store)
            .register(into: &router)
        let fanOut = changeFanOut(store)
        fanOut.register(into: &router)
        for service in extraServices {
            service.register(store, &router)
            logger.warning("test-only service is served: this executable is for tests, never production",
                           [("service", service.name)])
        }

        let metrics = self.metrics
        let rpcMetrics = serviceMetrics.rpc
        let logger = self.logger
        var http = HTTPRouter()
        http.add("GET", "/healthz", Daemon.healthzHandler(store, health: health))
        if adminConfiguration == nil {
            http.add("GET", "/metrics", metricsHandler())
            addGatedAdminOperations(to: &http)
        }
        let ingestor = NotificationIngestor(
            configuration: .init(
                sharedSecret: verifierConfiguration.sharedSecret, bundleID: verifierConfiguration.bundleID),
            verifier: jwsVerifier, repository: store, logger: logger, now: WallClock.unixMilliseconds,
            observeOwnership: { [serviceMetrics] in serviceMetrics.ownership($0) })
        NotificationWebhook(ingestor: ingestor, logger: logger, observe: { [serviceMetrics] labels in
            serviceMetrics.notification(version: labels.version, type: labels.type, outcome: labels.outcome)
        }).register(into: &http)
        reconciler = makeReconciler(source: apiClient, ingestor: ingestor, progress: store)
        if adminConfiguration == nil { addAdminOperations(toServicePort: &http) }
        let grpc = GRPCHandler(
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

        let server: HTTPServer
        do {
            // One port, two protocols: gRPC calls to the gRPC handler, the rest to the HTTP routes.
            let service = ContentTypeRouter(contentTypePrefix: GRPCHandler.contentType, to: grpc, otherwise: http)
            server = try HTTPServer(configuration: serverConfiguration, service: service)
        } catch {
            logger.error("cannot listen", [("error", "\(error)")])
            return 1
        }
        let admin: HTTPServer?
        do {
            admin = try startAdminServer()
        } catch {
            logger.error("cannot listen on --admin-listen", [("error", "\(error)")])
            await server.shutdown(gracePeriod: .zero)
            await store.close()
            return 1
        }
        metrics.registerGauge("entitlementd_open_connections", help: "client connections open now") {
            Double(server.openConnections)
        }
        metrics.registerGauge(
            "entitlementd_active_requests", help: "requests (HTTP/2 streams, HTTP/1.1 requests) in flight"
        ) {
            Double(server.activeRequests)
        }
        metrics.registerGauge("process_resident_memory_bytes", help: "resident set size") { residentMemoryBytes() }

        // Started in order: the store's writer before the listeners that feed it.
        store.start()
        do {
            try fanOut.start()
        } catch {
            logger.error("cannot read the change log", [("error", "\(error)")])
            await server.shutdown(gracePeriod: .zero)
            await admin?.shutdown(gracePeriod: .zero)
            await store.close()
            return 1
        }
        WatchMetrics.register(in: metrics, fanOut)
        server.start()
        admin?.start()
        // One line on stdout, written in one call and unbuffered: scripts and tests wait for it.
        FileHandle.standardOutput.write(Data(listenLines(server: server, admin: admin).utf8))
        logAdminListener(admin)
        if authenticator == nil {
            logger.warning("RPCs are unauthenticated (no --auth-tokens-file): fine on loopback, not in production")
        }
        await serve(store: store, server: server, admin: admin, fanOut: fanOut, until: shutdownRequested)
        logger.info("stopped")
        return 0
    }

    /// Runs the long-lived components in one task group until `shutdownRequested` opens, then
    /// shuts them down in the reverse order of their start: the service port drains (health
    /// says NOT_SERVING first), then the admin port, then the store, whose close commits what
    /// the drained requests wrote and checkpoints the WAL. Returns once every one has stopped.
    private func serve(store: any StoreBackend, server: HTTPServer, admin: HTTPServer?, fanOut: ChangeFanOut,
                       until shutdownRequested: Latch) async {
        let (logger, health, gracePeriod) = (self.logger, self.health, self.gracePeriod)
        // Reconciliation, webhook delivery and the store's timed work run where the lease is.
        let singleton = makeSingletonDuties(store: store)
        let lease = makeSingletonLease(store: store, feeding: singleton)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            group.addTask { await singleton.run() }
            if let lease { group.addTask { await lease.run() } } else { singleton.leaseChanged(.acquired) }
            group.addTask { await server.run() }
            if let admin { group.addTask { await admin.run() } }
            group.addTask { await fanOut.run() }
            await shutdownRequested.wait()
            logger.info("shutting down", [("grace_period", "\(gracePeriod)")])
            health.beginShutdown()
            // Streams never finish by themselves: end them (UNAVAILABLE, resume by cursor) first.
            fanOut.shutdown()
            await server.shutdown(gracePeriod: gracePeriod)
            await admin?.shutdown(gracePeriod: .seconds(1))
            // Before the store closes: the outcomes of finished deliveries are recorded. Before
            // the lease is released: another replica may take over at once.
            await singleton.stop()
            await lease?.stop()
            await store.close()
            await group.waitForAll()
        }
    }

    /// The signal handlers: SIGTERM/SIGINT open ``shutdownRequested``, SIGHUP reloads tokens.
    ///
    /// Registered before anything waits for signals, so one that arrived during startup stays
    /// pending and is handled, not dropped, once ``SignalWatcher/run()`` takes it.
    func signalWatcher() -> SignalWatcher {
        let signals = SignalWatcher()
        let (logger, shutdownRequested) = (self.logger, self.shutdownRequested)
        signals.on(SIGTERM) { shutdownRequested.open() }
        signals.on(SIGINT) { shutdownRequested.open() }
        if let authenticator, let path = flags.string("auth-tokens-file") {
            signals.on(SIGHUP) {
                do {
                    authenticator.replace(fileContents: try Daemon.readTokens(path))
                    logger.info("reloaded auth tokens", [("count", String(authenticator.tokenCount))])
                    // Applied even so: emptying the file is how every token is revoked at once.
                    if authenticator.tokenCount == 0 { logger.warning("no auth tokens left: every RPC is refused") }
                } catch {
                    logger.error("auth token reload failed; keeping the previous tokens", [("error", "\(error)")])
                }
            }
        } else {
            signals.on(SIGHUP) { logger.info("SIGHUP: nothing to reload (no --auth-tokens-file)") }
        }
        return signals
    }
}
