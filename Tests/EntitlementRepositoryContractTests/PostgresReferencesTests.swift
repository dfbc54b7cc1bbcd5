import PostgreSQL
@testable import PostgreSQLStore
import StorageCore
import Testing

/// The references PostgreSQL's written tables no longer check (`PostgresReferences`): the
/// migrations leave exactly those without a constraint, and verify-store reports a row naming a
/// missing parent as damage.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresReferencesTests {
    @Test func theMigratedSchemaChecksEveryReferenceButTheListedOnes() async throws {
        try await PostgresTestServer.withDatabase { url in
            let (checked, columns) = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try PostgresMigrator.migrate(db, nowMs: 1)
                return (try Self.strings(db, """
                    SELECT c.conrelid::regclass::text || '.' || a.attname FROM pg_constraint c
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
                    WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
                    """), try Self.strings(db, """
                    SELECT table_name || '.' || column_name FROM information_schema.columns
                    WHERE table_schema = current_schema()
                    """))
            }
            let listed = PostgresReferences.unchecked.map { "\($0.table).\($0.column)" }
            #expect(listed.count == 9)
            for reference in listed {
                #expect(columns.contains(reference), "\(reference) is not a column")
                #expect(!checked.contains(reference), "\(reference) still has a FOREIGN KEY")
            }
            // Tables written rarely keep theirs: the chain's owner, the source's user.
            #expect(checked.contains("chains.user_rowid"))
            #expect(checked.contains("processed_sources.user_rowid"))
        }
    }

    @Test func verifyStoreReportsRowsNamingMissingParents() async throws {
        try await PostgresTestServer.withDatabase { url in
            let (sound, damaged) = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try PostgresMigrator.migrate(db, nowMs: 1)
                try db.execute("""
                    INSERT INTO users (id, user_id, created_at_ms) VALUES (1, 'alice', 1);
                    INSERT INTO chains (id, original_transaction_id, user_rowid) VALUES (1, '100', 1);
                    INSERT INTO entitlement_heads VALUES
                        (1, NULL, 'pro', '100', 'ACTIVE', 1, 2, 0, 1, 0, 0, 'sub', 'g', 'Production', '100', 'pro');
                    """)
                let sound = try PostgresMaintenance.verify(url: url)
                try db.execute("""
                    INSERT INTO history_events (event_id, user_rowid, kind, occurred_at_ms, expires_at_ms,
                        environment, source, apple_notification_type)
                    VALUES ('v1:a', 7, 1, 1, 2, 1, 1, ''), ('v1:b', 5, 1, 1, 2, 1, 1, ''),
                        ('v1:c', 1, 1, 1, 2, 1, 1, '');
                    INSERT INTO renewal_infos (chain_rowid, auto_renew_status, is_in_billing_retry_period,
                        signed_date_ms, auto_renew_product_name_rowid)
                    VALUES (1, 1, 0, 1, 99);
                    """)
                return (sound, try PostgresMaintenance.verify(url: url))
            }
            #expect(!sound.isDamaged, "\(sound.structureProblems)")
            #expect(damaged.isDamaged)
            #expect(damaged.structureProblems.count == 2, "\(damaged.structureProblems)")
            #expect(damaged.structureProblems.contains {
                $0.hasPrefix("history_events.user_rowid names a missing row of users in 2 rows "
                             + "(the lowest id named: 5)")
            }, "\(damaged.structureProblems)")
            #expect(damaged.structureProblems.contains {
                $0.hasPrefix("renewal_infos.auto_renew_product_name_rowid names a missing row of product_names "
                             + "in 1 row (the lowest id named: 99)")
            }, "\(damaged.structureProblems)")
        }
    }

    private static func strings(_ db: PostgreSQL.Connection, _ sql: String) throws -> Set<String> {
        let statement = try db.prepare(sql)
        defer { statement.reset() }
        var found: Set<String> = []
        while try statement.step() { found.insert(statement.string(at: 0)) }
        return found
    }
}
