import AppStoreServerAPI
import Console
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
///
/// Holds only what the flags decided and what the whole process shares (logger, metrics);
/// everything built over the open store (health included) is ``Components``, made once in ``run()``.
final class Daemon {
    let flags: ParsedFlags
    let logger: Logger
    let metrics = MetricsRegistry()
    /// When the daemon was built, moments after the process started: `process_start_time_seconds`.
    let startedAtMs = WallClock.unixMilliseconds()
    let serviceMetrics: ServiceMetrics
    let authenticator: BearerTokenAuthenticator?
    let serverConfiguration: ServerConfiguration
    /// --max-message-size: the largest gRPC request message.
    let maxMessageSize: Int
    /// The admin listener (/metrics, admin operations), or nil to keep /metrics on the service port.
    let adminConfiguration: ServerConfiguration?
    /// The console's session lifetime and whether it believes a proxy's forwarded headers.
    let consoleConfiguration: Console.Configuration
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
    /// --refund-preference: what consumption answers ask Apple for.
    let refundPreference: RefundPreference
    let extraServices: [ExtraService]
    /// --reconcile-interval; nil for 0 (off).
    let reconcileInterval: Duration?
    /// --webhook-url and its settings; nil without one.
    let webhookConfiguration: WebhookDispatcher.Configuration?
    /// Opened by SIGTERM or SIGINT; ``run()`` then shuts everything down.
    let shutdownRequested = Latch()

    /// `webhookSchedule` is the production ``RetrySchedule/standard``; only the test executable
    /// passes a faster one.
    init(flags: ParsedFlags, extraServices: [ExtraService] = [], webhookSchedule: RetrySchedule = .standard) throws {
        self.flags = flags
        self.extraServices = extraServices
        serviceMetrics = ServiceMetrics(registry: metrics)
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
        consoleConfiguration = try DaemonFlags.consoleConfiguration(flags)
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
        refundPreference = try DaemonFlags.refundPreference(flags)
        if let path = flags.string("auth-tokens-file") {
            let tokens: BearerTokenAuthenticator
            do {
                tokens = try BearerTokenAuthenticator(fileContents: try Daemon.readTokens(path))
            } catch let error as TokensFileError {
                throw FlagError("--auth-tokens-file \(path): \(error)")
            }
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
    ///
    /// Opens the store, builds every component over it (``makeComponents(store:)``), starts
    /// them in order, and once ``shutdownRequested`` opens stops them in the reverse order:
    /// the service port drains (health says NOT_SERVING first, watch streams end), then the
    /// admin port, then the singleton duties and lease, then the store, whose close commits what
    /// the drained requests wrote and checkpoints the WAL.
    func run() async -> Int32 {
        logUnknownEnvironmentVariables(ProcessInfo.processInfo.environment)
        logMissingCapabilities()
        raiseOpenFilesLimit()
        let serviceMetrics = self.serviceMetrics
        var configuration = EntitlementStore.Configuration(
            transferPolicy: transferPolicy, memoryMapBytes: memoryMapBytes,
            onCommit: { size, seconds in serviceMetrics.storeCommitted(batchSize: size, seconds: seconds) })
        configureChangeLog(&configuration)
        guard let store = openStore(configuration) else { return 1 }
        guard let components = await makeComponents(store: store) else { return 1 }
        let logger = self.logger
        let started = await components.lifecycle.start { failure in
            logger.error(failure.message, [("error", "\(failure.cause)")])
        }
        guard started else { return 1 }
        // One line on stdout, written in one call and unbuffered: scripts and tests wait for it.
        FileHandle.standardOutput.write(Data(listenLines(server: components.server, admin: components.admin).utf8))
        logAdminListener(components.admin)
        if authenticator == nil {
            logger.warning("RPCs are unauthenticated (no --auth-tokens-file): fine on loopback, not in production")
        }
        let gracePeriod = self.gracePeriod
        await components.lifecycle.run(until: shutdownRequested) {
            logger.info("shutting down", [("grace_period", "\(gracePeriod)")])
        }
        logger.info("stopped")
        return 0
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
            let reloads = TokenReloadMetrics(registry: metrics)
            signals.on(SIGHUP) {
                do {
                    try authenticator.replace(fileContents: try Daemon.readTokens(path))
                    reloads.reloaded(succeeded: true)
                    logger.info("reloaded auth tokens", [("count", String(authenticator.tokenCount))])
                    // Applied even so: emptying the file is how every token is revoked at once.
                    if authenticator.tokenCount == 0 { logger.warning("no auth tokens left: every RPC is refused") }
                } catch {
                    reloads.reloaded(succeeded: false)
                    logger.error("auth token reload failed; keeping the previous tokens", [("error", "\(error)")])
                }
            }
        } else {
            signals.on(SIGHUP) { logger.info("SIGHUP: nothing to reload (no --auth-tokens-file)") }
        }
        return signals
    }
}
