@testable import PostgreSQLStore
import Testing

/// A table a PostgreSQL migration takes from schema.sql is one no later migration changes, or
/// the taking migration would make the later shape too early on an upgrade (`SchemaFile`).
/// Needs no server: it reads the migrations' text.
struct PostgresSchemaRuleTests {
    @Test func noMigrationChangesATableAnEarlierOneTookFromSchemaSQL() {
        let migrations = PostgresSchema.migrations.map(\.sql)
        #expect(PostgresSchema.current.tablesChangedAfterTaken(in: migrations).map { "\($0)" } == [])
        let altered = migrations + ["ALTER TABLE consumption_answers\n    ADD COLUMN note TEXT;"]
        #expect(PostgresSchema.current.tablesChangedAfterTaken(in: altered).map(\.table) == ["consumption_answers"])
    }
}
