import HTTP2
import HTTP1
import RPCCore
import HTTPServer
import ServiceRuntime

/// Every flag entitlementd takes. Each is also read from ENTITLEMENTD_<FLAG_IN_UPPER_SNAKE>.
enum DaemonFlags {
    /// What `entitlementd --version` prints; raised with each release.
    static let version = "0.1.0"

    /// `ENTITLEMENTD_*` variables that are not flags and draw no startup warning: the test
    /// suite's and scripts' own (Tests/Interop, Scripts/test, Scripts/run, Scripts/demo) and the
    /// one only the test executable reads. Any other unknown `ENTITLEMENTD_*` is taken for a typo.
    static let otherEnvironmentVariables: Set<String> = [
        "ENTITLEMENTD_BIN", "ENTITLEMENTD_PRODUCTION_BIN", "ENTITLEMENTD_TEST_POSTGRES_URL", "ENTITLEMENTD_CLUSTER",
        "ENTITLEMENTD_TEST_SEED", "ENTITLEMENTD_SERVER", "ENTITLEMENTD_APPLE", "ENTITLEMENTD_TESTING_WEBHOOK_RETRY",
    ]

    static let parser = FlagParser(
        program: "entitlementd",
        summary: "App Store entitlement service: gRPC (h2c) and HTTP/1.1 on one plain-TCP port.",
        environmentPrefix: "ENTITLEMENTD",
        specs: [
            FlagSpec(
                "listen", value: "HOST:PORT", default: "127.0.0.1:50051",
                help: "address to serve gRPC, /healthz, /metrics and Apple's webhook on"),
            FlagSpec(
                "admin-listen", value: "HOST:PORT",
                help: "serve /metrics and admin operations here, not on --listen (default off); "
                    + "keep it private, e.g. 127.0.0.1:9090"),
            FlagSpec(
                "catalog", value: "PATH",
                help: "product catalog JSON (types, entitlement ids, non-renewing durations)"),
            FlagSpec(
                "transfer-policy", value: "POLICY", default: "transfer",
                help: "when another user submits an owned chain: transfer (move it) or reject"),
            FlagSpec(
                "apple-production-url", value: "URL", default: "https://buy.itunes.apple.com/verifyReceipt",
                help: "Apple's production verifyReceipt endpoint"),
            FlagSpec(
                "apple-sandbox-url", value: "URL", default: "https://sandbox.itunes.apple.com/verifyReceipt",
                help: "Apple's sandbox verifyReceipt endpoint (21007 fallback)"),
            FlagSpec(
                "apple-shared-secret", value: "SECRET",
                help: "App Store Connect shared secret sent to verifyReceipt (prefer the environment variable)"),
            FlagSpec("bundle-id", value: "ID", help: "accept only receipts and notifications for this app bundle"),
            FlagSpec(
                "apple-root-ca", value: "PATH",
                help:
                    "PEM root certificate(s) trusted for Apple's signed data (default: the built-in Apple Root CA - G3)"
            ),
            FlagSpec(
                "apple-max-concurrency", value: "N", default: "64",
                help: "verifyReceipt calls in flight at once; more callers queue fairly"),
            FlagSpec(
                "apple-max-attempts", value: "N", default: "4",
                help: "attempts per verification for retryable Apple failures"),
            FlagSpec(
                "verify-cache-ttl", value: "DURATION",
                help: "answer a receipt verified this recently from the store (default off)"),
            FlagSpec("threads", value: "N", help: "event-loop threads (default: number of cores)"),
            FlagSpec("auth-tokens-file", value: "PATH",
                     help: "bearer tokens callers must present, one per line, each optionally with "
                         + "name=ACTOR roles=viewer,support,admin,rpc; SIGHUP reloads"),
            FlagSpec("max-concurrent-streams", value: "N", default: "256",
                     help: "HTTP/2 streams in flight per connection"),
            FlagSpec("max-connections", value: "N", default: "10000",
                     help: "open connections; further ones are closed at accept"),
            FlagSpec("max-message-size", value: "BYTES", default: "4194304",
                     help: "largest request message (gRPC RESOURCE_EXHAUSTED / HTTP 413 above it)"),
            FlagSpec("max-header-list-size", value: "BYTES", default: "16384",
                     help: "largest request header block (RESOURCE_EXHAUSTED / 431 above it)"),
            FlagSpec("idle-timeout", value: "DURATION", default: "300s",
                     help: "close connections with nothing in flight for this long"),
            FlagSpec("header-read-timeout", value: "DURATION", default: "10s",
                     help: "a request head must arrive within this long (slowloris defence)"),
            FlagSpec("shutdown-grace-period", value: "DURATION", default: "10s",
                     help: "how long SIGTERM waits for in-flight requests"),
            FlagSpec("log-level", value: "LEVEL", default: "info", help: "debug, info, warning or error"),
            FlagSpec("change-retention", value: "DURATION", default: "30d",
                     help: "keep entitlement changes this long for watchers and webhooks to resume from "
                         + "(at least 1m), or off to keep them all"),
            FlagSpec("log-format", value: "FORMAT", default: "text", help: "text or json"),
            FlagSpec("watch-buffer-bytes", value: "BYTES", default: "262144",
                     help: "responses a WatchEntitlementChanges client may leave unread before its stream ends "
                         + "RESOURCE_EXHAUSTED (it resumes from its last cursor)"),
            FlagSpec("stream-keepalive", value: "DURATION", default: "20s",
                     help: "PING connections with open streams after this long without traffic (keep it under "
                         + "proxies' read timeouts: nginx's grpc_read_timeout is 60s)"),
        ] + databaseSpecs + serverAPISpecs + reconciliationSpecs + webhookSpecs + consoleSpecs,
        refusesEmptyValues: true, version: version,
        commands: [("migrate-store", "copy a SQLite store into an empty PostgreSQL database (see its --help)"),
                   ("backup", "copy a SQLite store while the server runs (see its --help)"),
                   ("verify-store", "check a store (SQLite or PostgreSQL) for damage (see its --help)")])

    /// The largest request message (--max-message-size), gRPC's limit.
    static func maxMessageSize(_ flags: ParsedFlags) throws(FlagError) -> Int {
        try flags.int("max-message-size", range: 1024...(64 << 20))!
    }

    /// The transport settings the flags describe. A request body may hold one largest message
    /// with its gRPC framing; webhook bodies get the same limit.
    static func serverConfiguration(_ flags: ParsedFlags, cores: Int) throws(FlagError) -> ServerConfiguration {
        let (host, port) = try address(flags, "listen", example: "127.0.0.1:50051")
        let bodyLimit = GRPCFraming.bodySize(forMessageSize: try maxMessageSize(flags))
        let headerLimit = try flags.int("max-header-list-size", range: 1024...(1 << 20))!
        return ServerConfiguration(
            host: host, port: port,
            threads: try flags.int("threads", range: 1...256) ?? cores,
            maxConnections: try flags.int("max-connections", range: 1...1_000_000)!,
            http2: HTTP2Limits(
                maxConcurrentStreams: UInt32(try flags.int("max-concurrent-streams", range: 1...100_000)!),
                maxHeaderListSize: headerLimit, maxRequestBodySize: bodyLimit),
            http1: HTTP1RequestParser.Limits(maxHeaderBytes: headerLimit, maxBodySize: bodyLimit),
            idleTimeout: try flags.duration("idle-timeout")!,
            headerReadTimeout: try flags.duration("header-read-timeout")!,
            streamKeepalive: try streamKeepalive(flags))
    }
}
