import Testing
@testable import PostgreSQL

/// A broken session fails the call in progress, then the next call reconnects.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct ReconnectTests {
    @Test func terminatedBackendFailsOnceThenReconnects() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE r (k BIGINT)")
            let insert = try connection.prepare("INSERT INTO r VALUES (?)")
            insert.bind(1, at: 1)
            try insert.execute()
            let firstBackend = connection.backendProcessID
            try database.terminate(connection)

            insert.bind(2, at: 1)
            let error = #expect(throws: PostgreSQLError.self) { try insert.execute() }
            #expect(error?.isConnectionLost == true && error?.isTransient == true)

            // The next use reconnects; the statement is prepared again in the new session.
            insert.bind(3, at: 1)
            try insert.execute()
            #expect(connection.backendProcessID != firstBackend)
            #expect(connection.session == 1)
            #expect(try connection.scalarString("SELECT string_agg(k::text, ',' ORDER BY k) FROM r") == "1,3")
            let again = try connection.prepare("INSERT INTO r VALUES (?)")
            again.bind(4, at: 1)
            try again.execute()
            #expect(try connection.scalarInt64("SELECT count(*) FROM r") == 3)
        }
    }

    @Test func anOpenTransactionIsLostNotSilentlyContinued() async throws {
        try await withDatabase { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE r (k BIGINT)")
            try connection.execute("BEGIN; INSERT INTO r VALUES (1)")
            try database.terminate(connection)
            #expect(throws: PostgreSQLError.self) { try connection.execute("INSERT INTO r VALUES (2)") }
            #expect(!connection.isInTransaction)
            try connection.execute("ROLLBACK")  // the store's cleanup: harmless on the new session
            #expect(try connection.scalarInt64("SELECT count(*) FROM r") == 0)
        }
    }

    @Test func anUnreachableServerThrowsConnectionLostWithoutThePassword() throws {
        guard let server = TestDatabase.serverURL else { return }
        let url = try ConnectionURL(server).setting("host", to: "127.0.0.1").setting("port", to: "1")
            .setting("password", to: "never-logged-pw")
        let error = #expect(throws: PostgreSQLError.self) { try Connection(url: url) }
        #expect(error?.isConnectionLost == true)
        #expect(error.map { "\($0)" }?.contains("never-logged-pw") == false)
        #expect(error.map { "\($0)" }?.contains("127.0.0.1:1") == true)
    }
}
