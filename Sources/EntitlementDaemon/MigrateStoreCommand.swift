import Foundation
import PostgreSQLStore
import ServiceRuntime
import StorageCore

/// `entitlementd migrate-store --from PATH.sqlite --to postgres://...`: moves a SQLite store to
/// an empty PostgreSQL database (see ``StoreMigration``), printing the rows copied per table.
///
/// Exit codes: 0 migrated; 2 bad arguments; 3 refused because the target already holds data
/// (nothing changed); 1 anything else (nothing committed). Every message says what to do.
enum MigrateStoreCommand {
    static let usage = """
        usage: entitlementd migrate-store --from PATH.sqlite --to postgresql://USER@HOST:PORT/DATABASE

        Copies every table of a SQLite store into an empty PostgreSQL database, keeping ids and
        change sequences, and verifies the row count of each table. Stop entitlementd first.
        The target must be empty (a database with data is refused, exit 3); its schema is
        migrated first. Give the password through PGPASSWORD or ~/.pgpass rather than the URL,
        so it does not show in the process list.
        """

    struct Arguments: Equatable {
        var from: String
        var to: String
    }

    /// `--from X`, `--from=X`, `--to X`, `--to=X`; nil with `--help`.
    static func parse(_ arguments: [String]) throws(FlagError) -> Arguments? {
        guard let values = try CommandArguments.parse(arguments, command: "migrate-store",
                                                      values: ["from", "to"])?.values else { return nil }
        guard let from = values["from"], let to = values["to"] else {
            throw FlagError("migrate-store needs --from PATH.sqlite and --to postgresql://...")
        }
        guard case .postgres = StoreLocation(to) else {
            throw FlagError("migrate-store: --to must be a postgres:// or postgresql:// URL")
        }
        guard case .sqlite = StoreLocation(from) else {
            throw FlagError("migrate-store: --from is the SQLite file to copy (a path), not a URL")
        }
        return Arguments(from: from, to: to)
    }

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: Arguments
        let target: StoreLocation
        do {
            guard let arguments = try parse(arguments) else {
                print(usage)
                return 0
            }
            parsed = arguments
            target = StoreLocation(arguments.to)
            do {
                try target.validate()
            } catch {
                throw FlagError("migrate-store: --to: \(error.message)")
            }
        } catch {
            FileHandle.standardError.write(Data("entitlementd: \(error)\n\n\(usage)\n".utf8))
            return 2
        }
        guard FileManager.default.fileExists(atPath: parsed.from) else {
            FileHandle.standardError.write(Data(
                "entitlementd: migrate-store: no SQLite store at \(parsed.from): pass the --database file\n".utf8))
            return 2
        }
        print("migrating \(parsed.from) to \(target.redacted)")
        do {
            let counts = try StoreMigration.copy(sqlitePath: parsed.from, to: parsed.to,
                                                 nowMs: WallClock.unixMilliseconds(), progress: { print($0) })
            let width = counts.map(\.table.count).max() ?? 0
            print("verified row counts (SQLite = PostgreSQL):")
            for count in counts {
                print("  " + count.table.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.rows)")
            }
            print("migrated \(counts.reduce(0) { $0 + $1.rows }) rows in \(counts.count) tables; "
                  + "start entitlementd with --database \(target.redacted)")
            return 0
        } catch {
            FileHandle.standardError.write(Data("entitlementd: migrate-store: \(error)\n".utf8))
            return error.kind == .targetNotEmpty ? 3 : 1
        }
    }
}
