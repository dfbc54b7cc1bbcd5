import EntitlementPorts
import Entitlements
import PostgreSQL
@testable import PostgreSQLStore
@testable import SQLiteStore
@testable import StorageCore
import StorageTables
import Testing

/// A PostgreSQL database written before migrations 6 and 7 (history_events_compact_codes,
/// transactions_environment_code) keeps its history and facts: the names become codes that
/// read back as the same events and transactions.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresUpgradeTests {
    @Test func eventsAndTransactionsWrittenAsNamesReadBackAfterTheCodesMigrations() async throws {
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 5)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
                    INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                        VALUES (1, '1000', 1, 1), (2, '2000', NULL, NULL);
                    INSERT INTO transactions (transaction_id, chain_rowid, product_id, purchase_date_ms,
                        original_purchase_date_ms, is_trial_period, is_in_intro_offer_period, is_upgraded,
                        environment)
                        VALUES ('1000', 1, 'p', 10, 10, 0, 0, 0, 'sandbox'),
                               ('1001', 1, 'p', 20, 10, 0, 0, 0, 'production');
                    INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id,
                        transaction_id, original_transaction_id, expires_at_ms, environment, source,
                        apple_notification_type)
                        VALUES ('purchase:1000', 1, 'purchase', 10, 'p', '1000', '1000', 20, 'sandbox',
                                'notification_v2', 'SUBSCRIBED'),
                               ('billing_retry:1000:30', 1, 'billing_retry', 30, 'p', '1000', '1000', 20,
                                'production', 'notification_v1', 'DID_FAIL_TO_RENEW'),
                               ('x:1000', 1, 'not_a_kind', 40, 'p', '1000', '1000', 20, 'production', 'receipt', '');
                    INSERT INTO pending_events (event_id, chain_rowid, kind, occurred_at_ms, product_id,
                        transaction_id, original_transaction_id, expires_at_ms, environment, source,
                        apple_notification_type)
                        VALUES ('refund:2000', 2, 'refund', 50, 'p', '2000', '2000', 60, 'sandbox', 'receipt', '');
                    """)
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            let events = try store.history(userID: "alice", productID: nil, pageSize: 0, pageToken: nil).events
            let facts = try store.facts(userID: "alice")
            await store.close()
            #expect(facts.transactions.sorted { $0.transactionID < $1.transactionID }.map(\.environment)
                        == [.sandbox, .production])
            #expect(events == [
                HistoryEvent(eventID: "x:1000", kind: .other, occurredAtMs: 40, productID: "p",
                             transactionID: "1000", originalTransactionID: "1000", expiresAtMs: 20,
                             environment: .production, source: .receipt),
                HistoryEvent(eventID: "billing_retry:1000:30", kind: .billingRetry, occurredAtMs: 30,
                             productID: "p", transactionID: "1000", originalTransactionID: "1000",
                             expiresAtMs: 20, environment: .production, source: .notificationV1,
                             appleNotificationType: "DID_FAIL_TO_RENEW"),
                HistoryEvent(eventID: "purchase:1000", kind: .purchase, occurredAtMs: 10, productID: "p",
                             transactionID: "1000", originalTransactionID: "1000", expiresAtMs: 20,
                             environment: .sandbox, source: .notificationV2, appleNotificationType: "SUBSCRIBED"),
            ])
            let pending = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return [try db.scalarInt64("SELECT kind FROM pending_events"),
                        try db.scalarInt64("SELECT environment FROM pending_events"),
                        try db.scalarInt64("SELECT source FROM pending_events")]
            }
            #expect(pending == [StorageCodes.code(.refund), StorageCodes.code(.sandbox),
                                StorageCodes.code(.receipt)])
        }
    }

    /// Migration 8 (transactions_ownership_type_text): ownership types written as names before
    /// it read back exactly, the two known names and any other text alike.
    @Test func ownershipTypesWrittenAsNamesReadBackAfterTheOwnershipMigration() async throws {
        let values: [String?] = [nil, "PURCHASED", "FAMILY_SHARED", "", "F", "=x", "purchased"]
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 7)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
                    INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                        VALUES (1, '1000', 1, 1);
                    """)
                for (index, value) in values.enumerated() {
                    let literal = value.map { "'\($0)'" } ?? "NULL"
                    try db.execute("""
                        INSERT INTO transactions (transaction_id, chain_rowid, product_id, purchase_date_ms,
                            original_purchase_date_ms, is_trial_period, is_in_intro_offer_period, is_upgraded,
                            in_app_ownership_type, environment)
                            VALUES ('\(1000 + index)', 1, 'p', 10, 10, 0, 0, 0, \(literal), 1)
                        """)
                }
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            let facts = try store.facts(userID: "alice")
            await store.close()
            let byID = Dictionary(uniqueKeysWithValues: facts.transactions.map {
                ($0.transactionID, $0.inAppOwnershipType)
            })
            #expect(byID.count == values.count)
            for (index, value) in values.enumerated() {
                #expect(byID["\(1000 + index)"] == .some(value), "transaction \(1000 + index)")
            }
            let stored = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return try db.scalarString(
                    "SELECT in_app_ownership_type FROM transactions WHERE transaction_id = '1002'")
            }
            #expect(stored == "F")
        }
    }

    /// Migration 9 (user_facts_by_user_row): a record written under the user id before it is
    /// found through the user's row after it, byte for byte the same facts; a record without a
    /// users row (nothing could have written one) is dropped instead of stopping the upgrade.
    @Test func recordsKeyedByUserIDAreFoundByUserRowAfterTheMigration() async throws {
        let facts = UserFacts(transactions: [Transaction(
            transactionID: "1000", originalTransactionID: "1000", productID: "p", purchaseDateMs: 10,
            expiresDateMs: 20, inAppOwnershipType: "PURCHASED", environment: .sandbox)])
        let hex = UserFactsRecord.encode(facts).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 8)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (7, 'alice', 1);
                    INSERT INTO user_facts (user_id, facts) VALUES ('alice', '\\x\(hex)'), ('ghost', '\\x00');
                    """)
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            // No chains or transactions: only the record can answer.
            let read = try store.facts(userID: "alice")
            await store.close()
            #expect(read == facts)
            let rows = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return [try db.scalarInt64("SELECT count(*) FROM user_facts"),
                        try db.scalarInt64("SELECT user_key FROM user_facts")]
            }
            #expect(rows == [1, UserKey.of("alice")], "kept through migration 12 too, under alice's key")
        }
    }

    /// Migration 12 (user_facts_by_user_key): records keyed by the user's row before it are
    /// found by UserKey after it, byte for byte, and the key PL/pgSQL computed is the one Swift
    /// computes (the readers and writers bind Swift's) for ASCII, non-ASCII and long ids.
    @Test func recordsKeyedByUserRowAreFoundByUserKeyAfterTheMigration() async throws {
        let ids = ["alice", "zo\u{EB}-\u{1F600}", "7f9c2ba4-e88f-11e2-8a53-0b6c5f1e2d3c-appAccountToken-\(UInt64.max)"]
        let records = ids.enumerated().map { index, _ in
            UserFacts(transactions: [Transaction(
                transactionID: "\(1000 + index)", originalTransactionID: "\(1000 + index)", productID: "p",
                purchaseDateMs: 10, expiresDateMs: 20, environment: .sandbox)])
        }
        let hexes = records.map { facts in
            UserFactsRecord.encode(facts).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 11)
                for (index, id) in ids.enumerated() {
                    try db.execute("""
                        INSERT INTO users (id, user_id, created_at_ms) VALUES (\(index + 1), '\(id)', 1);
                        INSERT INTO user_facts (user_rowid, facts) VALUES (\(index + 1), '\\x\(hexes[index])');
                        """)
                }
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            // No chains or transactions: only the records can answer.
            let read = try ids.map { try store.facts(userID: $0) }
            await store.close()
            #expect(read == records)
            let keys = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return try ids.map { id in
                    let query = try db.prepare("SELECT user_key FROM user_facts WHERE user_id = ?")
                    query.bind(id, at: 1)
                    defer { query.reset() }
                    return try query.step() ? query.int64(at: 0) : nil
                }
            }
            #expect(keys == ids.map { UserKey.of($0) })
        }
    }

    /// Migration 10 (history_events_point_at_transactions): events written in full before it
    /// read back the same (they keep their columns, no pointer); an event written after it about
    /// a stored transaction points at it and reads back its ids through the shared statements.
    @Test func eventsWrittenBeforeThePointerMigrationReadBackAndNewOnesPoint() async throws {
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 9)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
                    INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                        VALUES (1, '1000', 1, 1);
                    INSERT INTO transactions (id, transaction_id, chain_rowid, product_id, purchase_date_ms,
                        original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                        is_upgraded, environment)
                        VALUES (1, '1000', 1, 'p', 10, 10, 20, 0, 0, 0, 0);
                    SELECT setval(pg_get_serial_sequence('transactions', 'id'), 1);
                    SELECT setval(pg_get_serial_sequence('chains', 'id'), 1);
                    SELECT setval(pg_get_serial_sequence('users', 'id'), 1);
                    INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, product_id,
                        transaction_id, original_transaction_id, expires_at_ms, environment, source,
                        apple_notification_type)
                        VALUES ('purchase:1000', 1, 1, 10, 'p', '1000', '1000', 20, 0, 0, '');
                    """)
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            _ = try await store.write(FactsWrite(userID: "alice", transactions: [Transaction(
                transactionID: "1001", originalTransactionID: "1000", productID: "p", purchaseDateMs: 20,
                originalPurchaseDateMs: 10, expiresDateMs: 30)], source: .receipt))
            let events = try store.history(userID: "alice", productID: "p", pageSize: 0, pageToken: nil).events
            await store.close()
            #expect(events.map(\.eventID) == ["renewal:1001", "purchase:1000"])
            #expect(events.map(\.transactionID) == ["1001", "1000"])
            #expect(events.map(\.originalTransactionID) == ["1000", "1000"])
            #expect(events.map(\.productID) == ["p", "p"])
            let pointers = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return try db.scalarString("""
                    SELECT string_agg(event_id || '=' || COALESCE(transaction_rowid::text, product_id), ' '
                        ORDER BY event_id) FROM history_events
                    """)
            }
            #expect(pointers == "purchase:1000=p renewal:1001=2")
        }
    }

    /// Migration 11 (product_names): product, group and auto-renew product ids written as text
    /// before it read back the same through the shared statements (NULL as NULL, names
    /// differing only in bytes kept apart), each distinct name stored once; later writes add a
    /// name once.
    @Test func productIDsWrittenBeforeTheNamesMigrationReadBackByteForByte() async throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try migrate(db, toVersion: 10)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
                    INSERT INTO chains (id, original_transaction_id, user_rowid, owned_since_ms)
                        VALUES (1, '1000', 1, 1);
                    INSERT INTO transactions (id, transaction_id, chain_rowid, product_id, purchase_date_ms,
                        original_purchase_date_ms, expires_date_ms, is_trial_period, is_in_intro_offer_period,
                        is_upgraded, subscription_group_identifier, environment)
                        VALUES (1, '1000', 1, '\(composed)', 10, 10, 20, 0, 0, 0, 'g', 0),
                               (2, '1001', 1, '\(decomposed)', 20, 10, 30, 0, 0, 0, NULL, 0);
                    INSERT INTO renewal_infos (chain_rowid, auto_renew_status, auto_renew_product_id,
                        is_in_billing_retry_period, signed_date_ms) VALUES (1, 1, 'g', 0, 5);
                    SELECT setval(pg_get_serial_sequence('transactions', 'id'), 2);
                    SELECT setval(pg_get_serial_sequence('chains', 'id'), 1);
                    SELECT setval(pg_get_serial_sequence('users', 'id'), 1);
                    """)
            }
            let store = try await PostgresTestServer.open(url)
            store.start()
            let before = try store.facts(userID: "alice")
            let renewal = Transaction(
                transactionID: "1002", originalTransactionID: "1000", productID: "p", purchaseDateMs: 30,
                originalPurchaseDateMs: 10, expiresDateMs: 40, subscriptionGroupIdentifier: "g")
            for _ in 0..<2 {
                _ = try await store.write(FactsWrite(userID: "alice", transactions: [renewal], source: .receipt))
            }
            let after = try store.facts(userID: "alice")
            let history = try store.history(userID: "alice", productID: "p", pageSize: 0, pageToken: nil).events
            await store.close()
            let transactions = before.transactions.sorted { $0.transactionID < $1.transactionID }
            #expect(transactions.map { Array($0.productID.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
            #expect(transactions.map(\.subscriptionGroupIdentifier) == ["g", nil])
            #expect(before.renewalInfos["1000"]?.autoRenewProductID == "g")
            #expect(after.transactions.contains(renewal))
            #expect(history.map(\.eventID) == ["renewal:1002"])
            let names = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return try db.scalarString("SELECT string_agg(name, ' ' ORDER BY name) FROM product_names")
            }
            let bytewise = [composed, decomposed, "g", "p"].sorted {
                Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
            }
            #expect(names == bytewise.joined(separator: " "))
        }
    }

    /// Migrations 14 (user_facts_drop_formats_1_and_2) and 18
    /// (user_facts_rewrite_missing_records): a database whose record of a user is in format 2
    /// (real bytes that format's encoder wrote, user u0 of the bench seed at 0c33037, whose rows
    /// in the tables are the facts it held) answers the same facts after the upgrade, and once
    /// the store has opened the user's record is in format 3 and holds those facts; a current
    /// record is kept byte for byte.
    @Test func format2RecordsAreRewrittenInTheCurrentFormatWhenTheUpgradedStoreOpens() async throws {
        let version2u0 = "020981DAC4091670726F2E6D6F6E74686C790E6772702E70726F1433303030303030302D3012505552434841"
            + "534544818ECE1C1433303030303030302D3181B489131433303030303030302D320301000001B6C38FA99F68008090A9FA13"
            + "030405000000010500018090A9FA13008090A9FA13030705000000010700018090A9FA13008090A9FA13030905000000010100"
            + "02B6D394F0C768"
        let purchases: [Int64] = [1_790_910_263_515, 1_793_588_663_515, 1_796_267_063_515]
        let transactions = zip(["10000000", "30000000", "20000000"], purchases).enumerated().map { renewal, pair in
            Transaction(
                transactionID: pair.0, originalTransactionID: "10000000", productID: "pro.monthly",
                purchaseDateMs: pair.1, originalPurchaseDateMs: purchases[0], expiresDateMs: pair.1 + 2_678_400_000,
                subscriptionGroupIdentifier: "grp.pro", webOrderLineItemID: "30000000-\(renewal)",
                inAppOwnershipType: "PURCHASED")
        }
        let renewal = RenewalInfo(originalTransactionID: "10000000", autoRenewStatus: true,
                                  autoRenewProductID: "pro.monthly", signedDateMs: 1_796_353_463_515)
        let u0 = UserFacts(transactions: transactions, renewalInfos: ["10000000": renewal])
        let other = UserFacts(transactions: [Transaction(
            transactionID: "4000", originalTransactionID: "4000", productID: "p", purchaseDateMs: 10,
            expiresDateMs: 20, environment: .sandbox)])
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            store.start()
            _ = try await store.write(FactsWrite(userID: "u0", transactions: transactions, renewalInfos: [renewal],
                                                 source: .receipt))
            _ = try await store.write(FactsWrite(userID: "other", transactions: other.transactions, source: .receipt))
            await store.close()
            let current = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                // Back before migration 14; the later ones undone too (grants, 15; daily_rollup, 16;
                // consumption, 17; the list of users without a record, 18; the written tables'
                // foreign keys dropped, 19).
                try db.execute(PostgresTestServer.foreignKeysBeforeMigration19)
                try db.execute("""
                    UPDATE user_facts SET facts = '\\x\(version2u0)' WHERE user_id = 'u0';
                    DELETE FROM schema_migrations WHERE version >= 14; DROP TABLE grants;
                    DROP TABLE consumption_answers; DROP TABLE user_facts_rewrite;
                    ALTER TABLE history_events DROP COLUMN actor; ALTER TABLE history_events DROP COLUMN reason;
                    DROP TABLE daily_rollup; DROP TABLE daily_rollup_backfill;
                    ALTER TABLE transactions DROP COLUMN price_milli; ALTER TABLE transactions DROP COLUMN currency;
                    """)
                return try db.scalarString("SELECT encode(facts, 'hex') FROM user_facts WHERE user_id = 'other'")
            }
            let upgraded = try await PostgresTestServer.open(url)
            upgraded.start()
            let read = try [upgraded.facts(userID: "u0"), upgraded.facts(userID: "other")]
            await upgraded.close()
            #expect(read == [u0, other])
            let rows = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return [try db.scalarString("SELECT encode(facts, 'hex') FROM user_facts WHERE user_id = 'other'"),
                        try db.scalarString("SELECT max(version)::text FROM schema_migrations"),
                        try db.scalarString("SELECT count(*)::text FROM user_facts_rewrite"),
                        try db.scalarString("SELECT encode(facts, 'hex') FROM user_facts WHERE user_id = 'u0'"),
                        try db.scalarString("SELECT string_agg(id || '=' || name, ' ') FROM product_names")]
            }
            #expect(Array(rows.prefix(3)) == [current, "\(PostgresMigrator.latestVersion)", "0"])
            let names = Dictionary(uniqueKeysWithValues: (rows[4] ?? "").split(separator: " ").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (Int64(parts[0]) ?? -1, String(parts[1]))
            })
            let record = bytes(hex: rows[3] ?? "")
            #expect(record.first == UserFactsRecord.version, "u0's record is rewritten in the current format")
            let decoded = try record.withUnsafeBytes { try UserFactsRecord.decode($0) { names[$0] } }
            #expect(decoded == u0)
        }
    }
}

/// The bytes `hex` spells, two digits each.
private func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap {
        UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)
    }
}

/// Builds the tables of PostgreSQL schema `version` as a server of that time left them, so a
/// test can write rows in the old shapes before the current migrations run over them.
private func migrate(_ db: PostgreSQL.Connection, toVersion version: Int) throws {
    try db.execute("""
        CREATE TABLE schema_migrations (
            version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at_ms BIGINT NOT NULL)
        """)
    for (index, migration) in PostgresSchema.migrations.prefix(version).enumerated() {
        try db.execute(migration.sql)
        try db.execute("INSERT INTO schema_migrations VALUES (\(index + 1), '\(migration.name)', 1)")
    }
}
