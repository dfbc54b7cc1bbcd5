import EntitlementMemoryStore
import EntitlementPorts
import Entitlements
import Foundation
import PostgreSQLStore
import SQLiteStore
import StorageCore
import Synchronization
import Testing
import TestSupport

/// Every implementation of ``EntitlementRepository``: each contract test runs once per case.
///
/// A new backend adds a case here and must pass the whole suite unchanged.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The production store on a real temporary file (WAL, writer thread, facts cache).
    case sqlite
    /// The reference implementation in memory.
    case memory
    /// The PostgreSQL store on a fresh database of the server at ENTITLEMENTD_TEST_POSTGRES_URL
    /// (Scripts/test starts one); left out when that is unset (see ``PostgresBackendAvailability``).
    case postgres

    static var allCases: [Backend] {
        PostgresTestServer.url == nil ? [.sqlite, .memory] : [.sqlite, .memory, .postgres]
    }

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh, empty repository of this backend; closes and removes it after.
    ///
    /// SQLite's facts cache is kept small, so evictions and misses race the writer's
    /// invalidations in the concurrent tests.
    /// `clock` (Unix ms) dates what the store itself dates, such as an ownership transfer.
    func withRepository(
        policy: TransferPolicy = .transfer, clock: @escaping @Sendable () -> Int64 = wallClockMs,
        _ body: (any EntitlementRepository) async throws -> Void
    ) async throws {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory("entitlement-contract")
            defer { directory.remove() }
            let store = try EntitlementStore(
                path: directory.file("entitlements.sqlite"),
                configuration: .init(transferPolicy: policy, factsCacheCapacity: 128, clock: clock))
            try await withStarted(store) { try await body($0) }
        case .memory:
            try await body(InMemoryEntitlementStore(transferPolicy: policy, clock: clock))
        case .postgres:
            try await PostgresTestServer.withStore(
                configuration: .init(transferPolicy: policy, factsCacheCapacity: 128, clock: clock)
            ) { try await body($0) }
        }
    }
}

/// Starts `store`, runs `body` with it and closes it on both paths, so a failing test leaves no
/// writer thread or database connection behind for the next one.
func withStarted<Store: StoreBackend>(_ store: Store, _ body: (Store) async throws -> Void) async throws {
    store.start()
    do {
        try await body(store)
    } catch {
        await store.close()
        throw error
    }
    await store.close()
}

@Sendable func wallClockMs() -> Int64 {
    Int64(Date().timeIntervalSince1970 * 1_000)
}

/// A clock that moves one millisecond each time it is read: every store-dated fact gets its
/// own instant without the test sleeping.
final class TickingClock: Sendable {
    private let ms: Mutex<Int64>

    init(startingAt ms: Int64) { self.ms = Mutex(ms) }

    var read: @Sendable () -> Int64 {
        { [self] in ms.withLock { ms in
            ms += 1
            return ms
        } }
    }
}

/// Asserts that `body` throws a ``StoreError`` with `code`; returns it for more checks.
@discardableResult
func expectStoreError(
    _ code: StoreError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> StoreError? {
    do {
        try await body()
        Issue.record("expected StoreError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected StoreError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

func transactionIDs(_ facts: UserFacts) -> Set<String> {
    Set(facts.transactions.map(\.transactionID))
}

func historyIDs(_ repository: any EntitlementRepository, _ user: String) throws -> [String] {
    try repository.history(userID: user, productID: nil, pageSize: 0, pageToken: nil).events.map(\.eventID)
}
