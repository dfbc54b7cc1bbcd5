import PostgreSQL
import SQLite
import SQLiteStore
import StorageCore

/// `entitlementd migrate-store`: copies a SQLite store into an empty PostgreSQL database, so a
/// single-process installation can become a cluster without losing a fact, a cursor or an id.
///
/// Every table of the schema is copied as it is: users, chains, transactions, renewal info,
/// refund reversals, history, pending events, processed sources (idempotency keys and
/// notification ids), the change log with its heads, identity and baseline, the webhook outbox,
/// endpoints and dead letters, reconciliation watermarks, history revisions and the user_facts
/// read model. Row ids are kept (they link the tables, and change sequences are the cursors
/// clients hold), and PostgreSQL's identity sequences are set past them. The tables come from
/// both databases' catalogs, so a migration added later is copied without touching this code;
/// a table one side has and the other lacks stops the copy.
///
/// All or nothing: the target is migrated to this binary's schema first, then everything is
/// written in one transaction, counted per table against the source, and committed only when
/// every count matches. A target that already holds data is refused before anything changes.
/// Run it with entitlementd stopped: the SQLite file is read in one snapshot.
public enum StoreMigration {
    /// Rows copied into one table (equal in source and target, or the copy was rolled back).
    public struct TableCount: Sendable, Equatable {
        public var table: String
        public var rows: Int64
    }

    /// Why a migration did not happen; ``message`` says what to do.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public enum Kind: Sendable { case targetNotEmpty, schemaMismatch, countMismatch, source, target }
        public var kind: Kind
        public var message: String
        public var description: String { message }
    }

    /// Tables both migrations fill with one row of bookkeeping: replaced by the source's row.
    static let seededTables: Set<String> = ["change_log_identity", "entitlement_heads_baseline"]
    /// Each engine's own record of its migrations: not data, never copied.
    static let migrationTable = "schema_migrations"

    /// Copies `sqlitePath` into the database at `url`; `progress` gets one line per step.
    public static func copy(
        sqlitePath: String, to url: ConnectionURL, nowMs: Int64, progress: (String) -> Void
    ) throws(Failure) -> [TableCount] {
        let source = try openSource(sqlitePath, nowMs: nowMs)
        defer { source.close() }
        let target: PostgreSQL.Connection
        do {
            target = try PostgreSQL.Connection(url: url)
        } catch {
            throw Failure(kind: .target, message: "\(error)")
        }
        defer { target.close() }
        try refuseForeignTables(target, url: url)
        do {
            let found = try PostgresMigrator.migrate(target, nowMs: nowMs)
            progress("target schema: version \(found) -> \(PostgresMigrator.latestVersion)")
        } catch {
            throw Failure(kind: .target, message: "cannot migrate the target's schema: \(error)")
        }
        let plan = try MigrationPlan(source: source, target: target)
        try refuseNonEmpty(plan, target: target, url: url)
        do {
            try source.execute("BEGIN")  // one snapshot of the file for the whole copy
            defer { try? source.execute("ROLLBACK") }
            return try target.transaction(beginning: ["BEGIN"]) {
                try plan.copyRows(from: source, to: target, progress: progress)
                try plan.advanceSequences(source: source, target: target)
                return try plan.verifyCounts(source: source, target: target)
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(kind: .target, message: "the copy failed and was rolled back (the target is as before): "
                          + "\(error)")
        }
    }

    private static func openSource(_ path: String, nowMs: Int64) throws(Failure) -> SQLite.Connection {
        do {
            let connection = try SQLite.Connection(path: path, options: .init(create: false))
            // What entitlementd would do at startup: an older file is brought to this binary's
            // schema, a newer one refused (this binary cannot know its tables).
            try Schema.migrate(connection, nowMs: nowMs)
            return connection
        } catch {
            throw Failure(kind: .source, message: "cannot read the SQLite store \(path): \(error)")
        }
    }

    /// A database with tables but no `schema_migrations` belongs to something else: never
    /// create our tables among them.
    private static func refuseForeignTables(_ target: PostgreSQL.Connection, url: ConnectionURL) throws(Failure) {
        do {
            let tables = try MigrationPlan.targetTables(target)
            guard tables.isEmpty || tables.contains(migrationTable) else {
                throw Failure(
                    kind: .targetNotEmpty,
                    message: "the target database \(url.redacted) holds tables that are not entitlementd's "
                        + "(\(tables.sorted().prefix(5).joined(separator: ", "))): create an empty database "
                        + "for entitlementd (CREATE DATABASE ...) and pass its URL to --to. Nothing was changed")
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(kind: .target, message: "cannot read the target's tables: \(error)")
        }
    }

    private static func refuseNonEmpty(
        _ plan: MigrationPlan, target: PostgreSQL.Connection, url: ConnectionURL
    ) throws(Failure) {
        var occupied: [String] = []
        do {
            for table in plan.tables where !seededTables.contains(table.name) {
                let rows = try target.scalarInt64("SELECT count(*) FROM \(quoted(table.name))") ?? 0
                if rows > 0 { occupied.append("\(table.name): \(rows) rows") }
            }
        } catch {
            throw Failure(kind: .target, message: "cannot count the target's rows: \(error)")
        }
        guard occupied.isEmpty else {
            throw Failure(
                kind: .targetNotEmpty,
                message: "the target database \(url.redacted) already holds entitlementd data ("
                    + occupied.prefix(4).joined(separator: ", ") + "): migrate-store copies into an empty "
                    + "database only, so it never mixes two stores. Create a new database and pass its URL to "
                    + "--to, or drop this one if its data is expendable. Nothing was changed")
        }
    }
}

/// `name` as a quoted SQL identifier (table and column names come from the catalogs).
func quoted(_ name: String) -> String {
    "\"" + name.replacing("\"", with: "\"\"") + "\""
}
