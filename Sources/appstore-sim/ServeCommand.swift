import AppStoreSimulator
import Foundation
import HTTPCore
import HTTPServer
import ServiceRuntime

/// `appstore-sim serve`: flags, the simulator, the HTTP server, and a wait for SIGTERM.
enum ServeCommand {
    static let parser = FlagParser(
        program: "appstore-sim serve",
        summary: "A local stand-in for the App Store: verifyReceipt, a control API, and signed webhooks.",
        environmentPrefix: "APPSTORE_SIM",
        specs: [
            FlagSpec(
                "listen", value: "HOST:PORT", default: "127.0.0.1:8090",
                help: "address to serve on (port 0 picks one)"),
            FlagSpec(
                "shared-secret", value: "SECRET",
                help: "the app's shared secret: verifyReceipt password (21004) and V1 password"),
            FlagSpec(
                "bundle-id", value: "ID", default: "com.example.app",
                help: "the app's bundle id in receipts and notifications"),
            FlagSpec("webhook-url", value: "URL", help: "where to POST server notifications (none: not sent)"),
            FlagSpec(
                "notifications", value: "VERSION", default: "v2",
                help: "v1 (JSON with password) or v2 (signedPayload)"),
            FlagSpec(
                "root-ca-out", value: "PATH",
                help: "write the generated root certificate (PEM) here, for --apple-root-ca"),
            FlagSpec(
                "delivery", value: "ORDER", default: "in-order",
                help: "in-order or shuffled (random delays up to 2 s)"),
            FlagSpec(
                "duplicate-rate", value: "P", default: "0",
                help: "probability 0..1 that a notification is delivered twice"),
            FlagSpec("seed", value: "N", help: "seed for shuffling and duplicates (default: random)"),
            FlagSpec("period-scale", value: "X", default: "1",
                     help: "multiply named periods and durations (30d, --grace 16d) by this, e.g. 0.0001 for demos"),
            FlagSpec(
                "drop-webhooks", value: "WHICH", default: "none",
                help: "drop webhook deliveries: none, all, or N (every Nth); also POST /control/drop-webhooks"),
            FlagSpec(
                "api-key-out", value: "PATH",
                help: "write the Server API private key here (PEM PKCS#8 .p8), for entitlementd's --app-store-key"),
            FlagSpec("api-key", value: "PATH", help: "load the Server API key pair from this .p8 (default: generate)"),
            FlagSpec(
                "api-key-id", value: "ID", default: "SIMKEY0001", help: "the key id the Server API's JWTs must name"),
            FlagSpec(
                "api-issuer-id", value: "UUID", default: "5a1e5a1e-0000-4000-8000-000000000001",
                help: "the issuer id the Server API's JWTs must carry (iss)"),
            FlagSpec(
                "api-page-size", value: "N", default: "20",
                help: "items per page of transaction and notification history (Apple: 20; small values page more)"),
        ])

    static func run(_ arguments: [String]) -> Int32 {
        do {
            let flags = try parser.parse(arguments, environment: ProcessInfo.processInfo.environment)
            if flags.helpRequested {
                print(parser.usage)
                return 0
            }
            return try serve(flags)
        } catch let error as FlagError {
            FileHandle.standardError.write(Data("appstore-sim: \(error)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("appstore-sim: cannot start: \(error)\n".utf8))
            return 1
        }
    }

    private static func serve(_ flags: ParsedFlags) throws -> Int32 {
        let listen = flags.string("listen")!
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
            throw FlagError("--listen must be HOST:PORT, got '\(listen)'")
        }
        guard let version = NotificationComposer.Version(rawValue: flags.string("notifications")!) else {
            throw FlagError("--notifications must be v1 or v2")
        }
        guard let order = DeliveryPlanner.Order(rawValue: flags.string("delivery")!) else {
            throw FlagError("--delivery must be in-order or shuffled")
        }
        guard let rate = Double(flags.string("duplicate-rate")!), (0...1).contains(rate) else {
            throw FlagError("--duplicate-rate must be a number in 0...1")
        }
        guard let scale = Double(flags.string("period-scale")!), scale > 0 else {
            throw FlagError("--period-scale must be a positive number")
        }
        let seed = try flags.string("seed").map { text throws(FlagError) -> UInt64 in
            guard let seed = UInt64(text) else { throw FlagError("--seed must be a whole number") }
            return seed
        } ?? UInt64.random(in: 0...UInt64.max)
        guard let drop = WebhookDropPolicy(text: flags.string("drop-webhooks")!) else {
            throw FlagError("--drop-webhooks must be none, all, or a whole number N (drop every Nth)")
        }
        guard let pageSize = Int(flags.string("api-page-size")!), (1...200).contains(pageSize) else {
            throw FlagError("--api-page-size must be a whole number in 1...200")
        }
        var delivery: WebhookDelivery?
        if let text = flags.string("webhook-url") {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw FlagError("--webhook-url must be an http(s) URL")
            }
            delivery = WebhookDelivery(poster: HTTPClientWebhookPoster(url: url),
                                       planner: DeliveryPlanner(order: order, duplicateRate: rate), seed: seed,
                                       drop: drop)
        }
        let wallClock: UnixClock = WallClock.unixMilliseconds
        let configuration = Simulation.Configuration(
            bundleID: flags.string("bundle-id")!, sharedSecret: flags.string("shared-secret"),
            firstTransactionID: Simulation.Configuration.idBase(startingAt: wallClock()))
        let apiKey = try ServerAPIKeyFiles.key(flags, bundleID: configuration.bundleID)
        let simulator = try AppStoreSimulator.withOwnPKI(
            configuration: configuration, notifications: version, delivery: delivery, periodScale: scale,
            apiKey: apiKey, apiPageSize: pageSize, wallClock: wallClock)
        if let path = flags.string("root-ca-out") {
            do {
                try simulator.rootCertificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw FlagError("--root-ca-out \(path) cannot be written: \(error.localizedDescription)")
            }
        }
        let stop = Latch()
        let signals = SignalWatcher()
        signals.on(SIGTERM) { stop.open() }
        signals.on(SIGINT) { stop.open() }
        signals.on(SIGHUP) {}
        signals.start()
        let server = try HTTPServer(
            configuration: ServerConfiguration(host: String(listen[..<colon]), port: port, threads: 2),
            service: simulator.service())
        server.start()
        // One line, one write, unbuffered: scripts wait for it.
        FileHandle.standardOutput.write(Data("appstore-sim listening on \(server.boundAddress)\n".utf8))
        stop.waitBlocking()
        server.shutdownBlocking(gracePeriod: .seconds(2))
        return 0
    }
}
