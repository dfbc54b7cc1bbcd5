import Foundation
import PostgreSQL
@testable import PostgreSQLStore
@testable import SQLiteStore
@testable import StorageCore
import Testing

/// `Sources/PostgreSQLStore/schema.sql` is the schema the migrations build: an empty database
/// migrated and another given the file hold the same columns (in order, with types,
/// nullability, defaults, collations, identity), constraints and indexes.
@Suite(.enabled(if: PostgresTestServer.url != nil, "ENTITLEMENTD_TEST_POSTGRES_URL is not set"))
struct PostgreSQLSchemaFileTests {
    static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/PostgreSQLStore/schema.sql").standardized.path

    @Test func theMigrationsBuildWhatSchemaSQLDescribes() async throws {
        let file = try String(contentsOfFile: Self.schemaFile, encoding: .utf8)
        try await PostgresTestServer.withDatabase { migratedURL in
            try await PostgresTestServer.withDatabase { describedURL in
                let (found, expected) = try await PostgresTestServer.offPool {
                    let migrated = try PostgreSQL.Connection(url: migratedURL)
                    defer { migrated.close() }
                    try PostgresMigrator.migrate(migrated, nowMs: 1)
                    let described = try PostgreSQL.Connection(url: describedURL)
                    defer { described.close() }
                    try described.execute(file)
                    return (try Self.dump(migrated), try Self.dump(described))
                }
                #expect(expected.count > 100)
                #expect(found == expected)
                for line in Set(found).symmetricDifference(expected).sorted() {
                    Issue.record("differs: \(line) (\(found.contains(line) ? "migrations only" : "schema.sql only"))")
                }
            }
        }
    }

    /// Every table but the migrator's own, one line per column (in order), constraint and index.
    static func dump(_ db: PostgreSQL.Connection) throws -> [String] {
        try rows(db, """
            SELECT 'column ' || table_name || ' ' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
                || COALESCE(column_default, '-') || ' ' || COALESCE(collation_name, '-') || ' ' || is_identity
                || ' ' || COALESCE(identity_generation, '-')
            FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
            ORDER BY table_name, ordinal_position
            """) + rows(db, """
            SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
            FROM pg_constraint
            WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text <> 'schema_migrations'
            ORDER BY 1
            """) + rows(db, """
            SELECT 'index ' || indexdef FROM pg_indexes
            WHERE schemaname = current_schema() AND tablename <> 'schema_migrations' ORDER BY 1
            """)
    }

    private static func rows(_ db: PostgreSQL.Connection, _ sql: String) throws -> [String] {
        let statement = try db.prepare(sql)
        defer { statement.reset() }
        var rows: [String] = []
        while try statement.step() { rows.append(statement.string(at: 0)) }
        return rows
    }
}
