import PostgreSQL
import Testing

/// The gateway's deferred statements and prefetched queries (libpq pipeline mode): results
/// arrive in order, a failure is never lost before COMMIT, and nothing is deferred outside a
/// transaction.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgresPipelineTests {
    /// A connection to a fresh database with `t (k TEXT PRIMARY KEY, n BIGINT)`.
    private func withTable(_ body: @escaping @Sendable (PostgreSQL.Connection) throws -> Void) async throws {
        try await PostgresTestServer.withDatabase { url in
            try await PostgresTestServer.offPool {
                let db = try PostgreSQL.Connection(url: url)
                defer { db.close() }
                try db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT NOT NULL)")
                try body(db)
            }
        }
    }

    private func insert(_ db: PostgreSQL.Connection, _ key: String, _ n: Int64, then: ((Int) -> Void)? = nil) throws {
        let statement = try db.prepare("INSERT INTO t (k, n) VALUES (?, ?) ON CONFLICT DO NOTHING")
        statement.bind(key, at: 1)
        statement.bind(n, at: 2)
        try db.executeDeferred(statement, then: then)
    }

    @Test func deferredWritesReportTheirCountsAndAreSeenByTheNextQuery() async throws {
        try await withTable { db in
            try insert(db, "warm", 0)  // outside a transaction: runs at once, prepares it
            try db.execute("BEGIN")
            var counts: [Int] = []
            for (key, n) in [("a", 1), ("b", 2), ("a", 3)] as [(String, Int64)] {
                try insert(db, key, n) { counts.append($0) }
            }
            let sum = try db.prepare("SELECT SUM(n) FROM t")
            #expect(try sum.step() && sum.int64(at: 0) == 3)
            sum.reset()
            #expect(counts == [1, 1, 0])
            try db.execute("COMMIT")
        }
    }

    @Test func aDeferredFailureIsThrownUntilRollbackAndNeverCommits() async throws {
        try await withTable { db in
            let failing = try db.prepare("INSERT INTO t (k, n) VALUES (?, ?)")
            failing.bind("x", at: 1)
            failing.bind(Int64(1), at: 2)
            try failing.execute()
            try db.execute("BEGIN")
            failing.bind("x", at: 1)  // a duplicate key: fails on the server
            failing.bind(Int64(2), at: 2)
            try db.executeDeferred(failing, then: nil)
            #expect(throws: PostgreSQLError.self) { try db.flushDeferred() }
            // A caller that swallowed it still cannot commit.
            #expect(throws: PostgreSQLError.self) { try db.execute("COMMIT") }
            try db.execute("ROLLBACK")
            #expect(try db.scalarInt64("SELECT COUNT(*) FROM t") == 1)
        }
    }

    @Test func prefetchedQueriesAnswerTheirOwnRows() async throws {
        try await withTable { db in
            try db.execute("INSERT INTO t VALUES ('a', 1), ('b', 2)")
            let find = try db.prepare("SELECT n FROM t WHERE k = ?")
            let count = try db.prepare("SELECT COUNT(*) FROM t WHERE n > ?")
            find.bind("a", at: 1)
            _ = try find.step()  // prepares both outside a transaction
            find.reset()
            count.bind(Int64(0), at: 1)
            _ = try count.step()
            count.reset()
            try db.execute("BEGIN")
            find.bind("b", at: 1)
            try db.prefetch(find)
            try insert(db, "c", 3)
            count.bind(Int64(1), at: 1)
            try db.prefetch(count)
            #expect(try count.step() && count.int64(at: 0) == 2)
            #expect(try find.step() && find.int64(at: 0) == 2)
            #expect(try !find.step())
            find.reset()
            count.reset()
            // Reset before its rows arrived: a later run gets its own.
            find.bind("a", at: 1)
            try db.prefetch(find)
            find.reset()
            find.bind("c", at: 1)
            #expect(try find.step() && find.int64(at: 0) == 3)
            find.reset()
            // Bound to another value before its step: the prefetched rows are not its answer.
            find.bind("a", at: 1)
            try db.prefetch(find)
            find.bind("b", at: 1)
            #expect(try find.step() && find.int64(at: 0) == 2)
            find.reset()
            try db.execute("COMMIT")
        }
    }
}
