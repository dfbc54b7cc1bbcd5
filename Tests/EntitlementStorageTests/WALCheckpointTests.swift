import EntitlementPorts
import Entitlements
import Foundation
import SQLite
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import TestSupport
import XCTest

/// The writer lets the WAL hold ``WriterLimits/walAutocheckpointPages`` pages before a COMMIT
/// checkpoints it (SQLite's default, 1,000 pages, copies hot pages into the file more often),
/// and a longer WAL loses nothing acknowledged.
final class WALCheckpointTests: StoreTestCase {
    func testTheWALGrowsPastSQLitesDefaultCheckpointAndEveryWriteSurvivesAReopen() async throws {
        let store = try openStore()
        let wal = databasePath + "-wal"
        // Each write commits alone, a few pages; SQLite's default would have restarted the WAL
        // from its beginning after ~1,000 pages, so the file would stay near 1 MiB.
        var users: [String] = []
        while Self.size(of: wal) < 2 * 1_048_576, users.count < 4_000 {
            let user = "user-\(users.count)"
            _ = try await store.write(Fixture.receipt(user, [Fixture.subscription("t-\(user)", chain: "c-\(user)")]))
            users.append(user)
        }
        XCTAssertGreaterThanOrEqual(Self.size(of: wal), 2 * 1_048_576, "after \(users.count) writes")
        try await store.withWriterConnection { db in
            XCTAssertEqual(try db.scalarInt64("PRAGMA wal_autocheckpoint"), Int64(WriterLimits.walAutocheckpointPages))
        }
        await store.close()

        let reopened = try openStore()
        for user in users {
            XCTAssertEqual(try reopened.facts(userID: user).transactions.map(\.transactionID), ["t-\(user)"], user)
        }
        try await reopened.withWriterConnection { db in
            XCTAssertEqual(try db.scalarString("PRAGMA integrity_check"), "ok")
        }
        await reopened.close()
    }

    private static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
