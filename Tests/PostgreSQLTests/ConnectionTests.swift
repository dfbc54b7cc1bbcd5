import SQLDatabase
import Testing
@testable import PostgreSQL

/// The session: changes, transaction state, the statement cache, classified errors.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct ConnectionTests {
    @Test func changesCountsRowsOfTheLastDataChange() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE c (k TEXT PRIMARY KEY, n BIGINT NOT NULL)")
            let insert = try connection.prepare("INSERT INTO c (k, n) VALUES (?, ?) ON CONFLICT (k) DO NOTHING")
            for key in ["a", "b", "c"] {
                insert.bind(key, at: 1)
                insert.bind(1, at: 2)
                try insert.execute()
                #expect(connection.changes == 1)
            }
            insert.bind("a", at: 1)
            insert.bind(1, at: 2)
            try insert.execute()
            #expect(connection.changes == 0)
            try connection.execute("UPDATE c SET n = n + 1")
            #expect(connection.changes == 3)
            // A SELECT leaves it alone, as in SQLite.
            #expect(try connection.scalarInt64("SELECT count(*) FROM c") == 3)
            #expect(connection.changes == 3)
            let delete = try connection.prepare("DELETE FROM c WHERE n = ?")
            delete.bind(2, at: 1)
            try delete.execute()
            #expect(connection.changes == 3)
        }
    }

    @Test func transactionStateFollowsTheServer() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE t (k BIGINT PRIMARY KEY)")
            #expect(!connection.isInTransaction)
            try connection.execute("BEGIN")
            #expect(connection.isInTransaction)
            try connection.execute("INSERT INTO t VALUES (1)")
            #expect(throws: PostgreSQLError.self) { try connection.execute("INSERT INTO t VALUES (1)") }
            // A failed statement leaves the block open (and aborted) until ROLLBACK.
            #expect(connection.isInTransaction)
            try connection.execute("ROLLBACK")
            #expect(!connection.isInTransaction)
            #expect(try connection.scalarInt64("SELECT count(*) FROM t") == 0)
            try connection.execute("BEGIN; INSERT INTO t VALUES (2); COMMIT")
            #expect(!connection.isInTransaction)
            #expect(try connection.scalarInt64("SELECT k FROM t") == 2)
        }
    }

    /// The store runs BEGIN/SAVEPOINT/ROLLBACK TO/RELEASE/COMMIT as cached statements; a failed
    /// statement's savepoint is rolled back while the transaction goes on (PostgreSQL accepts
    /// only transaction-exit statements in a failed transaction, prepared ones included).
    @Test func transactionControlRunsAsCachedStatements() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE s (k BIGINT PRIMARY KEY)")
            for round in 0..<2 {
                try connection.prepare("BEGIN").execute()
                let insert = try connection.prepare("INSERT INTO s VALUES (?)")
                insert.bind(Int64(round * 10 + 1), at: 1)
                try insert.execute()
                try connection.prepare("SAVEPOINT w").execute()
                insert.bind(Int64(round * 10 + 1), at: 1)
                #expect(throws: PostgreSQLError.self) { try insert.execute() }
                try connection.prepare("ROLLBACK TO w").execute()
                try connection.prepare("RELEASE w").execute()
                insert.bind(Int64(round * 10 + 2), at: 1)
                try insert.execute()
                try connection.prepare("COMMIT").execute()
                #expect(!connection.isInTransaction)
            }
            #expect(try connection.scalarString("SELECT string_agg(k::text, ',' ORDER BY k) FROM s") == "1,2,11,12")
        }
    }

    /// What the store does, through the engine-neutral protocols only.
    @Test func worksThroughSQLDatabaseProtocols() async throws {
        func record<DB: SQLConnection>(_ keys: [Int64], on db: DB) throws -> [Bool] {
            try db.transaction(beginning: ["BEGIN", "SELECT pg_advisory_xact_lock(1)"]) {
                try keys.map { key in
                    do {
                        try db.savepoint("w") {
                            let insert = try db.prepare("INSERT INTO p (k) VALUES (?)")
                            insert.bind(key, at: 1)
                            try insert.execute()
                        }
                        return true
                    } catch let failure as SQLFailure where failure.isConstraintViolation {
                        return false
                    }
                }
            }
        }
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE p (k BIGINT PRIMARY KEY)")
            #expect(try record([1, 2, 1, 3], on: connection) == [true, true, false, true])
            #expect(!connection.isInTransaction)
            #expect(try connection.scalarInt64("SELECT count(*) FROM p") == 3)
            let failure: (any Error)? = #expect(throws: (any Error).self) {
                try connection.transaction(beginning: ["BEGIN"]) { try connection.execute("SELECT nope") }
            }
            #expect((failure as? SQLFailure)?.isTransient == false)
            #expect(!connection.isInTransaction)
        }
    }

    @Test func statementsAreCachedBySQLText() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            let first = try connection.prepare("SELECT ?1::bigint * 2")
            first.bind(21, at: 1)
            #expect(try first.step() && first.int64(at: 0) == 42)
            let again = try connection.prepare("SELECT ?1::bigint * 2")
            #expect(first === again)
            // prepare() hands it back reset: no rows, no bindings left from the last run.
            #expect(try again.step() && again.isNull(at: 0))
            again.reset()
            #expect(try connection.scalarInt64(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::bigint%'") == 1)
        }
    }

    @Test func errorsCarrySQLStateAndKind() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE u (k TEXT PRIMARY KEY, n BIGINT NOT NULL)")
            try connection.execute("INSERT INTO u VALUES ('a', 1)")
            let duplicate = try connection.prepare("INSERT INTO u VALUES (?, ?)")
            duplicate.bind("a", at: 1)
            duplicate.bind(2, at: 2)
            let unique = #expect(throws: PostgreSQLError.self) { try duplicate.execute() }
            #expect(unique?.sqlState == "23505" && unique?.isConstraintViolation == true)
            #expect(unique?.isTransient == false)
            #expect(unique?.sql == "INSERT INTO u VALUES (?, ?)")
            let syntax = #expect(throws: PostgreSQLError.self) { try connection.execute("SELEC 1") }
            #expect(syntax?.sqlState == "42601" && syntax?.kind == .other)
            let prepareFails = #expect(throws: PostgreSQLError.self) {
                try connection.scalarInt64("SELECT nope FROM u")
            }
            #expect(prepareFails?.sqlState == "42703")
            // The connection stays usable after each.
            #expect(try connection.scalarInt64("SELECT n FROM u") == 1)
        }
    }

    @Test func lockNotAvailableIsTransient() async throws {
        try await withDatabase { database in
            let holder = try database.connect(), waiter = try database.connect()
            try holder.execute("CREATE TABLE l (k BIGINT PRIMARY KEY); INSERT INTO l VALUES (1)")
            try holder.execute("BEGIN; SELECT * FROM l FOR UPDATE")
            try waiter.execute("SET lock_timeout = '50ms'")
            let error = #expect(throws: PostgreSQLError.self) { try waiter.execute("UPDATE l SET k = 2") }
            #expect(error?.sqlState == "55P03" && error?.isTransient == true && error?.isConnectionLost == false)
            try holder.execute("ROLLBACK")
            try waiter.execute("UPDATE l SET k = 2")
            #expect(waiter.changes == 1)
        }
    }

    @Test func aClosedConnectionRefusesUse() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            connection.close()
            connection.close()
            let error = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") }
            #expect(error?.kind == .invalidArgument)
        }
    }
}
