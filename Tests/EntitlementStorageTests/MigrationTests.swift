import EntitlementPorts
import Entitlements
import SQLite
import SQLiteStore
import StorageCore
import TestSupport
import XCTest

final class MigrationTests: StoreTestCase {
    func testMigratesAnEmptyFileToTheLatestVersion() async throws {
        let store = try openStore()
        await store.close()
        let db = try Connection(path: databasePath)
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), 29)
        XCTAssertEqual(try db.scalarString("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM schema_migrations"), 29)
        let tables = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        var names: [String] = []
        while try tables.step() { names.append(tables.string(at: 0)) }
        XCTAssertEqual(names, ["account_tokens", "chains", "change_log_identity", "consumption_answers", "daily_rollup",
                               "daily_rollup_backfill", "entitlement_changes",
                               "entitlement_heads", "entitlement_heads_baseline", "grants", "history_events",
                               "history_revisions", "pending_events", "processed_sources", "product_names",
                               "reconciliation_watermarks", "refund_reversals", "renewal_infos", "schema_migrations",
                               "sqlite_sequence", "transactions", "user_facts", "user_facts_rewrite", "users",
                               "webhook_dead_letters", "webhook_endpoints", "webhook_outbox"])
    }

    func testReopenKeepsEverything() async throws {
        let transaction = Fixture.subscription("1000", chain: "1000")
        let renewal = RenewalInfo(originalTransactionID: "1000", autoRenewStatus: true,
                                  autoRenewProductID: "com.example.yearly", expirationIntent: 2,
                                  signedDateMs: 5)
        var store = try openStore()
        _ = try await store.write(Fixture.receipt("alice", [transaction], renewals: [renewal], sourceID: "r1"))
        let factsBefore = try store.facts(userID: "alice")
        let historyBefore = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil)
        await store.close()

        store = try openStore()
        XCTAssertEqual(try store.facts(userID: "alice"), factsBefore)
        XCTAssertEqual(factsBefore.transactions, [transaction], "every Transaction field round-trips")
        XCTAssertEqual(factsBefore.renewalInfos, ["1000": renewal])
        XCTAssertEqual(try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil),
                       historyBefore)
        let replay = try await store.write(Fixture.receipt("alice", [transaction], sourceID: "r1"))
        XCTAssertTrue(replay.alreadyProcessed)
        await store.close()
    }

    func testUpgradesAVersion3DatabaseKeepingEveryRow() async throws {
        try Version3Database.create(at: databasePath)
        let store = try openStore()
        let facts = try store.facts(userID: "alice")
        XCTAssertEqual(facts.transactions.map(\.transactionID), ["1000"])
        XCTAssertEqual(facts.transactions.map(\.environment), [.sandbox], "migration 13's code reads back")
        XCTAssertEqual(facts.renewalInfos["1000"]?.signedDateMs, 5)
        // Migration 12 turned the event's names into codes: it reads back as it was written.
        XCTAssertEqual(try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events,
                       [HistoryEvent(eventID: "purchase:1000", kind: .purchase, occurredAtMs: 1700000000000,
                                     productID: "com.example.monthly", transactionID: "1000",
                                     originalTransactionID: "1000", expiresAtMs: 1702592000000,
                                     environment: .sandbox, source: .receipt)])
        let replay = try await store.write(Fixture.receipt("alice", [], sourceID: "r1"))
        XCTAssertTrue(replay.alreadyProcessed)
        // The rebuilt chains table takes owner-less chains, and still links to alice's.
        let orphan = try await store.apply(Fixture.notification(
            "v2:orphan", transactions: [Fixture.subscription("2000", chain: "2000")]))
        XCTAssertEqual(orphan.ownerUserIDs, [])
        let owned = try await store.apply(Fixture.notification(
            "v2:owned", transactions: [Fixture.subscription("1001", chain: "1000")]))
        XCTAssertEqual(owned.ownerUserIDs, ["alice"])
        await store.close()

        let db = try Connection(path: databasePath)
        XCTAssertEqual(try db.scalarInt64("PRAGMA user_version"), 29)
        XCTAssertNil(try db.scalarString("PRAGMA foreign_key_check"))
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM chains WHERE user_rowid IS NULL"), 1)
    }

    func testRefusesADatabaseWithANewerSchema() async throws {
        try await openStore().close()
        do {
            let db = try Connection(path: databasePath)
            try db.execute("PRAGMA user_version = 99")
        }
        let error = await assertStoreError(.schemaTooNew) { _ = try self.openStore() }
        XCTAssertEqual(error?.message, "database schema version 99 is newer than this entitlementd "
                       + "knows (29): upgrade entitlementd or point --database elsewhere")
    }

    func testRefusesAnEditedMigrationHistory() async throws {
        try await openStore().close()
        do {
            let db = try Connection(path: databasePath)
            try db.execute("UPDATE schema_migrations SET name = 'renamed' WHERE version = 2")
        }
        await assertStoreError(.schemaMismatch) { _ = try self.openStore() }
    }

    func testWritesAndReadsAfterCloseFail() async throws {
        let store = try openStore()
        await store.close()
        await store.close()
        await assertStoreError(.closed) { _ = try await store.write(Fixture.receipt("bob", [])) }
        await assertStoreError(.closed) { _ = try store.facts(userID: "bob") }
    }
}
