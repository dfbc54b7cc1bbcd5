import EntitlementPorts
import Entitlements
import Foundation
import SQLiteStore
import StorageCore
import TestSupport
import XCTest

/// Base for store tests: a fresh directory per test, removed afterwards; real files, no mocks.
class StoreTestCase: XCTestCase {
    private var temporary: TemporaryDirectory?

    override func setUpWithError() throws {
        temporary = try TemporaryDirectory("entitlement-store")
    }

    override func tearDownWithError() throws {
        temporary?.remove()
    }

    /// This test's directory, removed afterwards.
    var directory: String { temporary!.path }

    var databasePath: String { directory + "/entitlements.sqlite" }

    func openStore(
        policy: TransferPolicy = .transfer, cacheCapacity: Int = 10_000
    ) throws -> EntitlementStore {
        let store = try EntitlementStore(
            path: databasePath,
            configuration: .init(transferPolicy: policy, factsCacheCapacity: cacheCapacity))
        store.start()
        return store
    }

    func transactionIDs(_ facts: UserFacts) -> Set<String> {
        Set(facts.transactions.map(\.transactionID))
    }

    /// Asserts that `body` throws a ``StoreError`` with `code`; returns it for more checks.
    @discardableResult
    func assertStoreError(
        _ code: StoreError.Code, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async -> StoreError? {
        do {
            try await body()
            XCTFail("expected StoreError \(code), nothing was thrown", file: file, line: line)
        } catch let error as StoreError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected StoreError \(code), got \(error)", file: file, line: line)
        }
        return nil
    }
}
