import EntitlementPorts
import PostgreSQL
import StorageCore

/// `entitlementd verify-store` on a PostgreSQL store. (Backups of PostgreSQL are pg_dump's job:
/// docs/operations.md gives the recipe; the restore drill runs it.)
package enum PostgresMaintenance {
    /// The schema version, the references the schema does not check as rows are written
    /// (``PostgresReferences``) and the records (``StoreVerifier``). PostgreSQL checks its own
    /// pages (checksums), so there is no counterpart to SQLite's integrity_check here; a restore
    /// that lost rows shows as orphaned references, as records that differ from their tables,
    /// or as missing data the restore drill compares.
    package static func verify(url: String) throws -> StoreCheck {
        let parsed: ConnectionURL
        do {
            parsed = try ConnectionURL(url)
        } catch {
            throw StoreError(code: .storageFailure, message: "\(error)", cause: error)
        }
        do {
            let db = try PostgreSQL.Connection(url: parsed)
            defer { db.close() }
            let tables = try db.scalarInt64("SELECT count(*) FROM pg_tables WHERE tablename = 'schema_migrations'")
            guard tables == 1 else {
                throw StoreError(code: .storageFailure,
                                 message: "\(parsed.redacted) is not an entitlementd store (no schema_migrations)")
            }
            let version = Int(try db.scalarInt64("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ?? 0)
            var check = StoreCheck(schemaVersion: version, latestVersion: PostgresMigrator.latestVersion)
            if version == check.latestVersion {
                try db.transaction(beginning: ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]) {
                    check.structureProblems += try PostgresReferences.orphans(db)
                    check.records = try StoreVerifier.verifyRecords(db)
                }
            }
            return check
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.storage(error, "verifying the PostgreSQL database at \(parsed.redacted)")
        }
    }
}
