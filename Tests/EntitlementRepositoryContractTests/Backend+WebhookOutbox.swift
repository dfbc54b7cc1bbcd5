import EntitlementMemoryStore
import EntitlementPorts
import Foundation
import PostgreSQLStore
import SQLiteStore
import StorageCore
import TestSupport

extension Backend {
    /// Runs `body` with a fresh, empty ``WebhookOutbox`` of this backend. `reopen` (SQLite
    /// only; the in-memory one returns the same outbox) closes the store and opens the file
    /// again, as a restart would.
    func withOutbox(
        _ body: (_ outbox: any WebhookOutbox, _ reopen: () async throws -> any WebhookOutbox) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory("webhook-outbox")
            defer { directory.remove() }
            let path = directory.file("entitlements.sqlite")
            var store = try EntitlementStore(path: path, configuration: .init())
            store.start()
            do {
                try await body(store) {
                    await store.close()
                    store = try EntitlementStore(path: path, configuration: .init())
                    store.start()
                    return store
                }
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        case .memory:
            let outbox = InMemoryWebhookOutbox()
            try await body(outbox) { outbox }
        case .postgres:
            try await PostgresTestServer.withDatabase { url in
                var store = try await PostgresTestServer.offPool {
                    try PostgresEntitlementStore(url: url, configuration: .init())
                }
                store.start()
                do {
                    try await body(store) {
                        await store.close()
                        store = try await PostgresTestServer.offPool {
                            try PostgresEntitlementStore(url: url, configuration: .init())
                        }
                        store.start()
                        return store
                    }
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            }
        }
    }
}
