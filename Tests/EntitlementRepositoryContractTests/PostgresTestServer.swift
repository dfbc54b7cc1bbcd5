import Foundation
import PostgreSQL
@testable import PostgreSQLStore
import SQLiteStore
import StorageCore
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
        try await execute("CREATE DATABASE \(name)", on: url)
        do {
            try await body(databaseURL(url, name: name))
        } catch {
            try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: url)
            throw error
        }
        try await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: url)
    }

    /// Puts back the foreign keys migration 19 (`drop_foreign_keys_of_written_tables`) drops, for
    /// a test that takes a database back before it to run the later migrations again.
    static let foreignKeysBeforeMigration19 = PostgresReferences.unchecked.map {
        "ALTER TABLE \($0.table) ADD CONSTRAINT \($0.table)_\($0.column)_fkey "
            + "FOREIGN KEY (\($0.column)) REFERENCES \($0.parent)(id);"
    }.joined(separator: "\n")

    /// Opens a store off the cooperative pool (see ``offPool(_:)``).
    static func open(_ url: String, poolSize: Int = PostgresEntitlementStore.defaultPoolSize,
                     configuration: EntitlementStore.Configuration = .init(),
                     onListenerChange: (@Sendable (StoreReadiness) -> Void)? = nil
    ) async throws -> PostgresEntitlementStore {
        try await offPool {
            try PostgresEntitlementStore(url: url, poolSize: poolSize, configuration: configuration,
                                         onListenerChange: onListenerChange)
        }
    }

    /// Runs `sql` on a connection of its own to `url`, off the cooperative pool.
    static func execute(_ sql: String, on url: String) async throws {
        try await offPool {
            let connection = try PostgreSQL.Connection(url: url)
            defer { connection.close() }
            try connection.execute(sql)
        }
    }

    /// Runs `body` on a thread of its own: libpq blocks (connects, migrations, advisory-lock
    /// waits), and Swift Testing's cooperative pool has one thread per core, which blocked tests
    /// would starve (other suites' waits then time out on a loaded machine).
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// A started ``PostgresEntitlementStore`` on a fresh database, closed after `body`.
    static func withStore(
        configuration: EntitlementStore.Configuration, _ body: (PostgresEntitlementStore) async throws -> Void
    ) async throws {
        try await withDatabase { url in
            let store = try await offPool { try PostgresEntitlementStore(url: url, configuration: configuration) }
            try await withStarted(store, body)
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
