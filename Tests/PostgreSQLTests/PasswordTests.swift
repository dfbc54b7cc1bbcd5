import Testing
@testable import PostgreSQL

/// The password may come from the URL or PGPASSWORD (libpq reads both); it never shows in errors.
@Suite(.enabled(if: TestDatabase.isConfigured, TestDatabase.skipReason))
struct PasswordTests {
    @Test func passwordFromTheURL() async throws {
        try await withDatabase { database in
            #expect(database.url["password"] != nil)
            let connection = try database.connect()
            #expect(try connection.scalarInt64("SELECT 1") == 1)
        }
    }

    @Test func passwordFromPGPASSWORD() async throws {
        try await withDatabase { database in
            // TestDatabase exported PGPASSWORD with the server's password before any test connected.
            let withoutPassword = database.url.removing("password")
            #expect(withoutPassword["password"] == nil)
            let connection = try Connection(url: withoutPassword)
            #expect(try connection.scalarString("SELECT current_database()") == database.name)
        }
    }

    @Test func aWrongPasswordInTheURLWinsOverPGPASSWORDAndIsNotShown() async throws {
        try await withDatabase { database in
            let wrong = database.url.setting("password", to: "wrong-pw-7f3a")
            let error = #expect(throws: PostgreSQLError.self) { try Connection(url: wrong) }
            let description = error.map { "\($0)" } ?? ""
            #expect(description.contains("password authentication failed"))
            #expect(!description.contains("wrong-pw-7f3a"))
            #expect(description.contains(":***@"))
        }
    }
}
