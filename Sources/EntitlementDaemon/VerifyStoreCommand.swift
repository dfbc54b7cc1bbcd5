import Foundation
import PostgreSQLStore
import SQLiteStore
import ServiceRuntime
import StorageCore

/// `entitlementd verify-store --database X`: checks a store (a backup, a restore, a live store)
/// for damage.
///
/// Exit codes: 0 sound; 1 damage found (each finding printed); 2 bad arguments; 3 the store
/// could not be opened or read.
enum VerifyStoreCommand {
    static let usage = """
        usage: entitlementd verify-store --database PATH.sqlite|postgresql://...

        Checks a store for damage: on SQLite the file's integrity (PRAGMA integrity_check) and
        references (foreign_key_check); on PostgreSQL the references its written tables do not
        check as rows arrive (rows naming a missing user, chain or product name); on both
        engines the schema version, and that every
        user's facts record decodes to exactly what the user's transactions and renewal infos
        hold (reads trust the record). Safe on a store a server is using; reads only.
        Exit 0 sound, 1 damage found, 2 bad arguments, 3 cannot open or read the store.
        """

    static func run(_ arguments: [String]) -> Int32 {
        let location: StoreLocation
        let database: String
        do {
            guard let parsed = try CommandArguments.parse(arguments, command: "verify-store",
                                                          values: ["database"]) else {
                print(usage)
                return 0
            }
            guard let value = parsed.values["database"] else {
                throw FlagError("verify-store needs --database PATH.sqlite or a postgresql:// URL")
            }
            database = value
            location = StoreLocation(value)
            try location.validate()
        } catch {
            FileHandle.standardError.write(Data("entitlementd: \(error)\n\n\(usage)\n".utf8))
            return 2
        }
        let check: StoreCheck
        do {
            switch location {
            case .sqlite:
                guard FileManager.default.fileExists(atPath: database) else {
                    FileHandle.standardError.write(Data("entitlementd: verify-store: no file at \(database)\n".utf8))
                    return 2
                }
                check = try SQLiteMaintenance.verify(path: database)
            case .postgres:
                check = try PostgresMaintenance.verify(url: database)
            }
        } catch {
            FileHandle.standardError.write(Data("entitlementd: verify-store: \(error)\n".utf8))
            return 3
        }
        report(check, name: location.redacted)
        return check.isDamaged ? 1 : 0
    }

    private static func report(_ check: StoreCheck, name: String) {
        print("store: \(name)")
        switch check.schemaVersion {
        case check.latestVersion: print("schema: version \(check.schemaVersion) (current)")
        case ..<check.latestVersion:
            print("schema: version \(check.schemaVersion), older than this entitlementd's \(check.latestVersion): "
                  + "a server migrates it at startup; records not checked")
        default:
            print("DAMAGE: schema version \(check.schemaVersion) is newer than this entitlementd knows "
                  + "(\(check.latestVersion)): verify it with the entitlementd that wrote it")
        }
        for problem in check.structureProblems { print("DAMAGE: \(problem)") }
        if let records = check.records {
            print("records: \(records.records) checked, \(records.problemCount) damaged")
            for problem in records.problems { print("DAMAGE: \(problem)") }
            if records.problemCount > records.problems.count {
                print("DAMAGE: ... and \(records.problemCount - records.problems.count) more records")
            }
        }
        print(check.isDamaged ? "result: DAMAGED" : "result: sound")
    }
}
