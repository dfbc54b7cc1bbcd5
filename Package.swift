// swift-tools-version:6.0
// entitlementd: an App Store entitlement service. Layers point downwards:
// C gateways -> codecs/protocol cores -> transport -> domain -> services -> executables.
import PackageDescription

/// The event-loop modules touch class state only from their loop thread, where Swift's dynamic
/// exclusivity checks cost ~5% of the hot path (measured with perf) and can never fire; release
/// builds of those modules leave them out. Debug builds and every other module keep them.
let loopConfined: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "entitlementd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "entitlementd", targets: ["entitlementd"]),
        .executable(name: "entitlementctl", targets: ["entitlementctl"]),
        .executable(name: "appstore-sim", targets: ["appstore-sim"]),
    ],
    targets: [
        // C gateways: a module map and a shim header each; exactly one Swift module imports each.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CFuzzer", path: "Sources/CFuzzer"),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CHTTPParser", path: "Sources/CHTTPParser",
                       providers: [.apt(["libhttp-parser-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgreSQL", path: "Sources/CPostgreSQL", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),

        // The runtime under everything that runs: threads, locks, the clock, Duration units,
        // signals, flags, logger, metrics. Depends on nothing of ours.
        .target(name: "ServiceRuntime"),
        // SplitMix64, the seedable generator simulations, load runs and randomized tests replay from.
        .target(name: "SeededRandom"),

        // Codecs and protocol cores: no sockets, no domain words.
        // The code every layer's error carries (STYLE.md item 5), one generic for all of them.
        .target(name: "ErrorCodes"),

        .target(name: "ProtobufWire", dependencies: ["ErrorCodes"]),
        // The .proto -> Swift generator (a strict proto3-subset parser and the emitter), the
        // host tool that runs it, and the build-tool plugin that runs the tool for a target.
        .target(name: "ProtoCodegen"),
        .executableTarget(name: "proto-codegen", dependencies: ["ProtoCodegen"]),
        .plugin(name: "ProtoCodegenPlugin", capability: .buildTool(), dependencies: ["proto-codegen"]),
        .target(name: "HTTPCore", swiftSettings: loopConfined),
        .target(name: "HTTP2", dependencies: ["CNGHTTP2", "HTTPCore"], swiftSettings: loopConfined),
        .target(name: "HTTP1", dependencies: ["CHTTPParser", "HTTPCore"], swiftSettings: loopConfined),
        .target(name: "RPCCore", dependencies: ["HTTPCore", "ProtobufWire", "JWS", "ServiceRuntime"],
                swiftSettings: loopConfined),
        .target(name: "HTTPServer", dependencies: ["CLinux", "HTTPCore", "HTTP2", "HTTP1", "ServiceRuntime"],
                swiftSettings: loopConfined),
        // Engine-neutral SQL protocols the store is written against; SQLite and PostgreSQL conform.
        .target(name: "SQLDatabase"),
        .target(name: "SQLite", dependencies: ["CSQLite", "SQLDatabase"]),
        // libpq: sessions, statements, LISTEN/NOTIFY, advisory locks and the singleton lease.
        .target(name: "PostgreSQL", dependencies: ["CPostgreSQL", "SQLDatabase", "ErrorCodes"]),

        // libcurl: the client for Apple's endpoints (one multi handle on its own thread).
        .target(name: "HTTPClient", dependencies: ["CCurl", "ServiceRuntime"]),

        // The domain and the service.
        .target(name: "Entitlements", dependencies: ["ErrorCodes"]),
        // Its messages and enums are generated from Protos/ (the files its protos.txt lists) at build time.
        .target(name: "EntitlementAPI", dependencies: ["ProtobufWire"], plugins: ["ProtoCodegenPlugin"]),
        .target(name: "AppStore", dependencies: ["Entitlements", "ErrorCodes"]),
        .target(name: "JWS", dependencies: ["COpenSSL", "ErrorCodes"]),
        // The App Store Server API client: JWT signing, the endpoints, paging, retries, rate.
        // Opens no sockets: the service hands it the HTTP client it uses for Apple.
        .target(name: "AppStoreServerAPI", dependencies: ["Entitlements", "JWS", "ServiceRuntime", "ErrorCodes"]),
        // The port: what the service needs from storage, in domain words. Backends implement it.
        .target(name: "EntitlementPorts", dependencies: ["Entitlements", "ErrorCodes"]),
        // Storage: the tables as Swift sees them (row codecs, the user_facts record format,
        // storage codes, and the recorders that write a batch's facts, changes and outbox rows
        // inside the writer's transaction); the store core over them (the ports' implementations,
        // writer thread and group commit, facts cache, readers); and one target per engine adding
        // its connections, migrations and current schema (schema.sql).
        .target(name: "StorageTables",
                dependencies: ["EntitlementPorts", "Entitlements", "SQLDatabase", "ServiceRuntime"]),
        .target(name: "StorageCore",
                dependencies: ["StorageTables", "EntitlementPorts", "Entitlements", "SQLDatabase", "ServiceRuntime"]),
        .target(name: "SQLiteStore",
                dependencies: ["StorageCore", "StorageTables", "EntitlementPorts", "SQLDatabase", "SQLite"],
                resources: [.embedInCode("schema.sql")]),
        // PostgreSQL for replicas: LISTEN/NOTIFY, the singleton lease, and migrate-store, which reads
        // a SQLite store (so it knows SQLiteStore's migrations).
        .target(name: "PostgreSQLStore",
                dependencies: ["StorageCore", "StorageTables", "SQLiteStore", "EntitlementPorts", "SQLDatabase",
                               "PostgreSQL", "SQLite", "ServiceRuntime"],
                resources: [.embedInCode("schema.sql")]),
        // The in-memory backend: the reference implementation of the port, for tests only.
        .target(name: "EntitlementMemoryStore", dependencies: ["EntitlementPorts", "Entitlements"]),
        // The console's dashboard: daily figures -> HTML with server-rendered SVG charts, and CSV.
        // Pure functions over domain values; the console's routes call them.
        .target(name: "ConsoleDashboard", dependencies: ["Entitlements", "ServiceRuntime"]),
        // Webhooks: the change log pushed to HTTP endpoints through the durable outbox.
        .target(name: "Webhooks",
                dependencies: ["EntitlementPorts", "Entitlements", "JWS", "ServiceRuntime", "HTTPClient"]),
        .target(name: "EntitlementService",
                dependencies: ["Entitlements", "EntitlementAPI", "EntitlementPorts", "AppStore",
                               "JWS", "RPCCore", "HTTPCore", "ServiceRuntime", "AppStoreServerAPI", "HTTPClient"]),
        // The web console on the admin listener: sessions, pages and actions over the same handlers
        // as the RPCs; HTML rendered here from typed values, escaped at one boundary.
        .target(name: "Console",
                dependencies: ["HTTPCore", "RPCCore", "JWS", "ServiceRuntime", "EntitlementAPI", "EntitlementPorts",
                               "Entitlements", "EntitlementService"]),
        // The gRPC client side: an HTTP/2 client session over a blocking socket, unary calls.
        .target(name: "RPCClient",
                dependencies: ["HTTP2", "HTTPCore", "RPCCore", "ProtobufWire", "ServiceRuntime", "ErrorCodes"]),
        .executableTarget(name: "entitlementctl",
                          dependencies: ["RPCClient", "EntitlementAPI", "HTTPCore", "ServiceRuntime", "HTTPClient"]),
        // The App Store simulator: Apple's endpoints and notifications for local testing.
        .target(name: "AppStoreSimulator",
                dependencies: ["AppStore", "Entitlements", "JWS", "HTTPCore", "SeededRandom", "ErrorCodes"]),
        .executableTarget(name: "appstore-sim",
                          dependencies: ["AppStoreSimulator", "HTTPServer", "HTTPCore", "ServiceRuntime", "JWS",
                                         "HTTPClient"]),
        // The composition root as a library: flags, wiring, lifecycle. Executables add nothing
        // but the services they link (ExtraService).
        .target(name: "EntitlementDaemon",
                dependencies: ["EntitlementService", "HTTPServer", "HTTP2", "HTTP1", "RPCCore",
                               "HTTPCore", "ServiceRuntime", "EntitlementPorts", "StorageCore", "SQLiteStore",
                               "PostgreSQLStore", "Entitlements", "JWS", "AppStoreServerAPI", "Webhooks", "Console",
                               "ConsoleDashboard", "EntitlementAPI"]),
        .executableTarget(name: "entitlementd", dependencies: ["EntitlementDaemon"]),

        // Test-only: the entitlementd.testing.v1 service (Seed writes facts for any user) and the
        // executable serving it for Scripts/test, Tests/Interop and Benchmarks/. Never a
        // dependency of entitlementd, never built by Scripts/run nor shipped by Deploy/
        // (Scripts/lib/test-production-binary.sh checks the binary).
        .target(name: "EntitlementTesting",
                dependencies: ["EntitlementService", "EntitlementPorts", "Entitlements", "RPCCore", "ProtobufWire"],
                plugins: ["ProtoCodegenPlugin"]),
        .executableTarget(name: "entitlementd-testing",
                          dependencies: ["EntitlementDaemon", "EntitlementTesting", "Webhooks"]),

        // Zero-latency verifyReceipt fake for Benchmarks/submit-receipt.sh; never part of the service.
        .executableTarget(name: "apple-fake",
                          dependencies: ["HTTPServer", "HTTPCore", "AppStore", "Entitlements", "JWS"],
                          path: "Benchmarks/apple-fake"),

        // libFuzzer harness for every byte entry point; built by Scripts/fuzz, never by the service.
        .executableTarget(name: "entitlementd-fuzz",
                          dependencies: ["CFuzzer", "AppStore", "JWS", "EntitlementAPI", "RPCCore", "HTTP1",
                                         "HTTP2", "HTTPCore", "AppStoreServerAPI"]),
        // Store benchmarks (seed, writes, startup, reads) for Benchmarks/; print figures, never tests.
        .executableTarget(name: "entitlementd-bench",
                          dependencies: ["StorageCore", "SQLiteStore", "EntitlementPorts", "Entitlements",
                                         "ServiceRuntime", "ConsoleDashboard"],
                          path: "Benchmarks/entitlementd-bench"),
        // ES256 JWS verifications per second on one thread over real Apple tokens; prints figures.
        .executableTarget(name: "jws-bench", dependencies: ["JWS"], path: "Benchmarks/jws-bench"),
        // CheckEntitlement load generator (many users, uniform or Zipf) for Benchmarks/; prints figures.
        .executableTarget(name: "entitlementd-load",
                          dependencies: ["HTTP2", "HTTPCore", "EntitlementAPI", "ProtobufWire", "CLinux",
                                         "SeededRandom"],
                          path: "Benchmarks/entitlementd-load"),

        // Test-only: what more than one test target needs (the one `eventually`, a manual clock,
        // temporary directories, the store suites' facts). Used by test targets only, never by
        // a product (Scripts/lib/check-imports.py refuses an import of it anywhere else).
        .target(name: "TestSupport", dependencies: ["EntitlementPorts", "Entitlements", "SeededRandom"],
                path: "Tests/TestSupport"),

        .testTarget(name: "ProtobufWireTests", dependencies: ["ProtobufWire"]),
        .testTarget(name: "ProtoCodegenTests", dependencies: ["ProtoCodegen"]),
        .testTarget(name: "EntitlementAPITests", dependencies: ["EntitlementAPI", "ProtobufWire"]),
        .testTarget(name: "RPCCoreTests",
                    dependencies: ["RPCCore", "HTTPCore", "ProtobufWire", "SeededRandom", "TestSupport"]),
        .testTarget(name: "HTTPProtocolTests",
                    dependencies: ["HTTP1", "HTTP2", "HTTPCore", "CNGHTTP2", "SeededRandom"]),
        .testTarget(name: "HTTPServerTests",
                    dependencies: ["HTTPServer", "HTTP2", "HTTPCore", "CLinux", "SeededRandom", "TestSupport"]),
        .testTarget(name: "EntitlementsTests", dependencies: ["Entitlements", "SeededRandom"]),
        .testTarget(name: "ConsoleDashboardTests",
                    dependencies: ["ConsoleDashboard", "Entitlements", "ServiceRuntime"]),
        .testTarget(name: "ServiceRuntimeTests", dependencies: ["ServiceRuntime", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "TestSupport"]),
        .testTarget(name: "RPCClientTests",
                    dependencies: ["RPCClient", "RPCCore", "HTTPCore", "HTTP2", "ProtobufWire", "HTTPServer",
                                   "TestSupport"]),
        .testTarget(
            name: "AppStoreSimulatorTests",
            dependencies: ["AppStoreSimulator", "AppStore", "JWS", "Entitlements", "HTTPCore", "SeededRandom",
                           "TestSupport"]),
        .testTarget(name: "AppStoreTests", dependencies: ["AppStore", "Entitlements", "SeededRandom"]),
        // Wycheproof/: Google's ECDSA P-256 vectors (test data, Apache-2.0, its LICENSE beside them).
        .testTarget(name: "JWSTests", dependencies: ["JWS", "SeededRandom"], resources: [.copy("Wycheproof")]),
        .testTarget(name: "AppStoreServerAPITests", dependencies: ["AppStoreServerAPI", "Entitlements", "JWS"]),
        // Against a real server (ENTITLEMENTD_TEST_POSTGRES_URL); skipped with a message without one.
        .testTarget(name: "PostgreSQLTests", dependencies: ["PostgreSQL", "SQLDatabase", "ServiceRuntime"]),
        .testTarget(name: "EntitlementStorageTests",
                    dependencies: ["StorageCore", "StorageTables", "SQLiteStore", "EntitlementPorts", "Entitlements",
                                   "SQLite", "SQLDatabase", "ServiceRuntime", "SeededRandom", "TestSupport"]),
        // One contract suite, run against every EntitlementRepository backend.
        .testTarget(name: "EntitlementRepositoryContractTests",
                    dependencies: ["EntitlementPorts", "StorageCore", "StorageTables", "SQLiteStore", "PostgreSQLStore",
                                   "EntitlementMemoryStore", "Entitlements", "PostgreSQL", "SeededRandom",
                                   "TestSupport"]),
        // Webhooks: the body, the signature, the retry schedule and the dispatcher, in memory; the
        // libcurl transport against the HTTP server on loopback.
        .testTarget(name: "WebhooksTests",
                    dependencies: ["Webhooks", "EntitlementPorts", "EntitlementMemoryStore", "Entitlements",
                                   "ServiceRuntime", "HTTPServer", "HTTPCore", "TestSupport"]),
        // The composition root's edges: metric labels from what the service observed.
        .testTarget(
            name: "EntitlementDaemonTests",
            dependencies: ["EntitlementDaemon", "EntitlementService", "ServiceRuntime", "EntitlementPorts",
                           "StorageCore", "SQLiteStore", "Entitlements", "TestSupport"]),
        // The console's rules as tables (escaping, CSRF, sessions, roles) and its routes over an in-memory desk.
        .testTarget(name: "ConsoleTests",
                    dependencies: ["Console", "HTTPCore", "RPCCore", "EntitlementAPI", "EntitlementPorts",
                                   "Entitlements", "TestSupport"]),
        // The service's decisions in milliseconds: a scripted Apple, the in-memory repository, no sockets.
        .testTarget(name: "EntitlementServiceTests",
                    dependencies: ["EntitlementService", "EntitlementMemoryStore", "EntitlementPorts", "Entitlements",
                                   "EntitlementAPI", "AppStore", "JWS", "RPCCore", "HTTPCore", "ServiceRuntime",
                                   "HTTPClient", "AppStoreServerAPI", "ProtobufWire", "TestSupport"]),
    ]
)
