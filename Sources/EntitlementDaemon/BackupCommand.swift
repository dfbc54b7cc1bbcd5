import Foundation
import SQLiteStore
import ServiceRuntime
import StorageCore

/// `entitlementd backup --database SRC --to FILE [--force]`: an online, consistent copy of a
/// SQLite store, taken while the server runs.
///
/// Exit codes: 0 copied; 2 bad arguments (a PostgreSQL URL among them: pg_dump backs those
/// up); 3 refused because FILE exists (nothing changed); 1 the copy failed (FILE untouched).
enum BackupCommand {
    static let usage = """
        usage: entitlementd backup --database PATH.sqlite --to FILE [--force]

        Copies a SQLite store while entitlementd keeps serving and writing to it. The copy holds
        every write acknowledged before the backup began, as one consistent state; writers are
        never blocked (the database's WAL file grows until the copy ends). FILE is written under
        a temporary name and renamed when complete, so it is never a partial copy. An existing
        FILE is refused unless --force. Check a copy with `entitlementd verify-store`; restore
        by stopping entitlementd and pointing --database at the copy (docs/operations.md).
        PostgreSQL stores are backed up with pg_dump (docs/operations.md gives the recipe).
        """

    static func run(_ arguments: [String]) -> Int32 {
        let source: String
        let destination: String
        let force: Bool
        do {
            guard let parsed = try CommandArguments.parse(arguments, command: "backup", values: ["database", "to"],
                                                          switches: ["force"]) else {
                print(usage)
                return 0
            }
            guard let database = parsed.values["database"], let to = parsed.values["to"] else {
                throw FlagError("backup needs --database PATH.sqlite and --to FILE")
            }
            guard case .sqlite = StoreLocation(database) else {
                throw FlagError("backup: --database is a PostgreSQL URL; back PostgreSQL up with pg_dump "
                                + "(docs/operations.md, \"Backup and restore\")")
            }
            source = database
            destination = to
            force = parsed.switches.contains("force")
        } catch {
            return fail(2, "\(error)\n\n\(usage)")
        }
        guard FileManager.default.fileExists(atPath: source) else {
            return fail(2, "backup: no SQLite store at \(source): pass the file entitlementd's --database names")
        }
        if let refusal = refusal(destination: destination, force: force) { return fail(3, refusal) }
        if force {
            // A stale -wal beside the old copy would be replayed into the new one when it opens.
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: destination + suffix)
            }
        }
        var lastShown = -1
        do {
            let bytes = try SQLiteMaintenance.backup(from: source, to: destination) { copied, total in
                // Progress for large stores only (over 64 MiB of 1 KiB pages), once per percent.
                guard total > 65_536 else { return }
                let percent = copied * 100 / max(total, 1)
                guard percent != lastShown else { return }
                lastShown = percent
                FileHandle.standardError.write(Data("backup: \(percent)% (\(copied) of \(total) pages)\n".utf8))
            }
            print("backed up \(source) to \(destination) (\(bytes) bytes); "
                  + "check it with: entitlementd verify-store --database \(destination)")
            return 0
        } catch {
            return fail(1, "backup: \(error)")
        }
    }

    /// Why `destination` may not be written, or nil.
    private static func refusal(destination: String, force: Bool) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "backup: \(destination) is a directory: name the file to write" }
            if !force { return "backup: \(destination) exists; pass --force to replace it (nothing was changed)" }
        }
        if !force, FileManager.default.fileExists(atPath: destination + "-wal") {
            return "backup: \(destination)-wal exists (a server used a file of that name); "
                + "pass --force to replace both (nothing was changed)"
        }
        let folder = (destination as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            return "backup: the folder \(folder) does not exist: create it first (nothing was changed)"
        }
        return nil
    }

    private static func fail(_ code: Int32, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data("entitlementd: \(message)\n".utf8))
        return code
    }
}
