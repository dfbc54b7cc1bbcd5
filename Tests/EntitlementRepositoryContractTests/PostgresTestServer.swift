import EntitlementStorage
import Foundation
import PostgreSQL
import Testing

/// The PostgreSQL server the contract suite runs against: ENTITLEMENTD_TEST_POSTGRES_URL (a
/// superuser URL; Scripts/test starts a private server and sets it), one fresh database per test.
enum PostgresTestServer {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["ENTITLEMENTD_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// Creates an empty database, runs `body` with its URL, then drops it (closing any
    /// connection left open).
    static func withDatabase(_ body: (String) async throws -> Void) async throws {
        guard let url else { throw PostgresTestSkipped() }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgreSQL.Connection(url: url)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        defer { try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        try await body(databaseURL(url, name: name))
    }

    /// A started ``PostgresEntitlementStore`` on a fresh database, closed after `body`.
    static func withStore(
        configuration: EntitlementStore.Configuration, _ body: (PostgresEntitlementStore) async throws -> Void
    ) async throws {
        try await withDatabase { url in
            let store = try PostgresEntitlementStore(url: url, configuration: configuration)
            store.start()
            do {
                try await body(store)
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }

    /// `url` with its database (the path after host and port) replaced by `name`.
    static func databaseURL(_ url: String, name: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + name
        return components.string!
    }
}

struct PostgresTestSkipped: Error, CustomStringConvertible {
    var description: String { "ENTITLEMENTD_TEST_POSTGRES_URL is not set" }
}

/// Says, in the test report, when the PostgreSQL cases were left out.
@Suite struct PostgresBackendAvailability {
    @Test(.disabled(if: PostgresTestServer.url == nil,
                    """
                    ENTITLEMENTD_TEST_POSTGRES_URL is not set: the contract suite ran on SQLite and in memory \
                    only (Scripts/test sets it; Scripts/lib/postgres.sh start DIR prints one)
                    """))
    func postgresBackendIsConfigured() throws {
        let connection = try PostgreSQL.Connection(url: PostgresTestServer.url!)
        defer { connection.close() }
        #expect(try connection.scalarInt64("SELECT 1") == 1)
    }
}
