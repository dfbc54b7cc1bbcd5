import EntitlementMemoryStore
import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQLStore
import SQLiteStore
import StorageCore
import Synchronization
import TestSupport

/// A repository with its change log, as the contract's change-log tests need it.
typealias ChangeLoggingRepository = any EntitlementRepository & EntitlementChangeLog & EntitlementChangeUpkeep

extension Backend {
    /// Like ``withRepository(policy:clock:_:)``, with the change log's sides visible; the
    /// SQLite store's own background prune and due timer are off, so only the test prunes and
    /// writes what time made due (ChangeTimerTests cover the timer).
    func withChangeLog(
        policy: TransferPolicy = .transfer, clock: ManualClock, _ body: (ChangeLoggingRepository) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory("entitlement-contract")
            defer { directory.remove() }
            var configuration = EntitlementStore.Configuration(
                transferPolicy: policy, factsCacheCapacity: 128, clock: clock.read)
            configuration.changeRetentionMs = nil
            configuration.dueTimer = false  // the test moves the clock and drives time itself
            let store = try EntitlementStore(path: directory.file("entitlements.sqlite"), configuration: configuration)
            try await withStarted(store) { try await body($0) }
        case .memory:
            try await body(InMemoryEntitlementStore(transferPolicy: policy, clock: clock.read))
        case .postgres:
            var configuration = EntitlementStore.Configuration(
                transferPolicy: policy, factsCacheCapacity: 128, clock: clock.read)
            configuration.changeRetentionMs = nil
            configuration.dueTimer = false
            try await PostgresTestServer.withStore(configuration: configuration) { try await body($0) }
        }
    }
}

/// Collects what `onChangesCommitted` reports.
final class CommittedSequences: Sendable {
    private let seen = Mutex<[Int64]>([])
    var values: [Int64] { seen.withLock { $0 } }
    func record(_ sequence: Int64) { seen.withLock { $0.append(sequence) } }
}
