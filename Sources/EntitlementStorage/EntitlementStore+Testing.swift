import EntitlementPorts
import SQLite

/// A seam for tests that provoke storage faults; internal, so no binary can reach it directly.
extension EntitlementStore {
    /// Runs `body` on the writer thread, between batches, with the writer's own connection.
    ///
    /// Why: some faults only exist per connection (e.g. `PRAGMA max_page_count`, which makes
    /// the database "fill up" with SQLITE_FULL at a size the test chooses, and raising it
    /// again is "space returns"), and the writer's connection belongs to its thread. Queued
    /// like a write, so it runs after what was queued before it.
    func withWriterConnection(_ body: @escaping @Sendable (Connection) throws -> Void) async throws {
        try await core.withWriterConnection(body)
    }
}
