import EntitlementPorts
import Entitlements
import PostgreSQL
@testable import PostgreSQLStore
import Testing
import TestSupport

/// PostgreSQL's migration 16 (`daily_rollup`) on a database with facts: the store fills the
/// rollup from them when it opens, to what the writer keeps, and only once.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresDailyRollupUpgradeTests {
    @Test func aDatabaseWithFactsFromBeforeTheRollupGetsItFilledWhenTheStoreOpens() async throws {
        let day0 = UTCDay(containing: Fixture.purchasedAt)
        let days = day0...day0.advanced(by: 100)
        let chain = (0..<3).map { index in
            Transaction(transactionID: "10\(index)", originalTransactionID: "10", productID: "pro",
                        purchaseDateMs: Fixture.purchasedAt + Int64(index) * 2_592_000_000,
                        expiresDateMs: Fixture.purchasedAt + Int64(index + 1) * 2_592_000_000,
                        isTrialPeriod: index == 0, environment: .production)
        }
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresTestServer.open(url)
            store.start()
            _ = try await store.write(FactsWrite(userID: "alice", transactions: chain, source: .receipt))
            let kept = try store.dailyFigures(days: days, environment: .production)
            await store.close()
            #expect(kept.map(\.trialConversions).reduce(0, +) == 1)
            #expect(kept.map(\.renewals).reduce(0, +) == 1)

            // Back before migration 16, the later ones undone too.
            try await PostgresTestServer.execute(PostgresTestServer.foreignKeysBeforeMigration19, on: url)
            try await PostgresTestServer.execute("""
                DELETE FROM schema_migrations WHERE version >= 16;
                DROP TABLE daily_rollup; DROP TABLE daily_rollup_backfill; DROP TABLE consumption_answers;
                DROP TABLE user_facts_rewrite;
                ALTER TABLE transactions DROP COLUMN price_milli; ALTER TABLE transactions DROP COLUMN currency;
                """, on: url)
            let upgraded = try await PostgresTestServer.open(url)
            upgraded.start()
            #expect(try upgraded.dailyFigures(days: days, environment: .production) == kept)
            await upgraded.close()
            let marks = try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                return try db.scalarInt64("SELECT count(*) FROM daily_rollup_backfill")
            }
            #expect(marks == 0, "filled once")
        }
    }
}
