import Foundation
import Testing
import PostgreSQL

/// A fresh database on the test server (`ENTITLEMENTD_TEST_POSTGRES_URL`), dropped by ``drop()``.
///
/// Scripts/test starts the server (Scripts/lib/postgres.sh) and exports the variable; without
/// it the suites that need a server are skipped with ``skipReason``.
final class TestDatabase {
    static let variable = "ENTITLEMENTD_TEST_POSTGRES_URL"

    static let serverURL: String? = {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        // Set once, before any test connects: the PGPASSWORD test needs it, and a URL that
        // carries its own password (every other test's) takes precedence over it.
        if let password = try? ConnectionURL(text)["password"] { setenv("PGPASSWORD", password, 1) }
        return text
    }()

    static var isConfigured: Bool { serverURL != nil }

    static let skipReason: Comment = """
        needs a PostgreSQL server: run Scripts/test, or start one with \
        `Scripts/lib/postgres.sh start .build/pg-test` and export \(variable)=<the URL it prints>
        """

    let name: String
    let url: ConnectionURL
    private let admin: Connection

    init() throws {
        guard let serverURL = Self.serverURL else { throw PostgreSQLError(kind: .invalidArgument, sqlState: nil,
                                                                           message: "\(Self.variable) is not set") }
        admin = try Connection(url: serverURL)
        name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.execute("CREATE DATABASE \(name)")
        url = admin.url.setting("dbname", to: name)
    }

    func connect() throws -> Connection { try Connection(url: url) }

    /// Ends the session of `connection` from the server side, as an administrator or a failover
    /// would, and waits until the server has really ended it.
    func terminate(_ connection: Connection) throws {
        try terminate(backend: connection.backendProcessID)
    }

    func terminate(backend pid: Int32) throws {
        let kill = try admin.prepare("SELECT pg_terminate_backend(CAST(?1 AS INTEGER))")
        kill.bind(Int64(pid), at: 1)
        try kill.execute()
        for _ in 0..<200 {
            let alive = try admin.prepare("SELECT count(*) FROM pg_stat_activity WHERE pid = ?1")
            alive.bind(Int64(pid), at: 1)
            _ = try alive.step()
            let count = alive.int64(at: 0)
            alive.reset()
            if count == 0 { return }
            usleep(50_000)
        }
    }

    func drop() {
        try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }
}

/// Runs `body` with a fresh database, dropping it afterwards; off the cooperative pool.
func withDatabase<R>(_ body: (TestDatabase) throws -> R) async throws -> R {
    try await offPool {
        let database = try TestDatabase()
        defer { database.drop() }
        return try body(database)
    }
}
