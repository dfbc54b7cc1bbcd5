import EntitlementMemoryStore
import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQLStore
import SQLiteStore
import StorageCore
import Synchronization

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
            let directory = NSTemporaryDirectory() + "entitlement-contract-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var configuration = EntitlementStore.Configuration(
                transferPolicy: policy, factsCacheCapacity: 128, clock: clock.read)
            configuration.changeRetentionMs = nil
            configuration.dueTimer = false  // the test moves the clock and drives time itself
            let store = try EntitlementStore(path: directory + "/entitlements.sqlite", configuration: configuration)
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

/// A clock the test sets: time-driven changes are tested without sleeping.
final class ManualClock: Sendable {
    private let ms: Mutex<Int64>

    init(_ ms: Int64) { self.ms = Mutex(ms) }

    var read: @Sendable () -> Int64 { { [self] in ms.withLock { $0 } } }

    func set(_ value: Int64) { ms.withLock { $0 = value } }
}

/// Collects what `onChangesCommitted` reports.
final class CommittedSequences: Sendable {
    private let seen = Mutex<[Int64]>([])
    var values: [Int64] { seen.withLock { $0 } }
    func record(_ sequence: Int64) { seen.withLock { $0.append(sequence) } }
}
